import { Elysia, t } from "elysia";
import type { AppContext } from "../context.ts";
import { authPlugin } from "../http/auth-plugin.ts";
import { Ack, ack, paging } from "../http/paging.ts";
import { Chunk, ChunkListQuery, ChunkPage, ChunkPatch, ChunkSearchQuery } from "./schema.ts";
import type { ChunkService } from "./service.ts";

const Id = t.Object({ chunkId: t.String({ format: "uuid" }) });

export function chunkRoutes(ctx: AppContext, chunks: ChunkService) {
  return new Elysia({ prefix: "/v1/chunk", detail: { tags: ["Chunk"] } })
    .use(authPlugin(ctx))
    .get("/", ({ principal, query }) => chunks.search(principal.orgId, { body: query.body, ...paging(query) }), {
      query: ChunkListQuery,
      response: ChunkPage,
      detail: { summary: "List the organization's chunks in reading order (document, first page, id)" },
    })
    .get("/q", ({ principal, query }) => chunks.search(principal.orgId, { ...query, ...paging(query) }), {
      query: ChunkSearchQuery,
      response: ChunkPage,
      detail: { summary: "Search chunks; all filters combine; metadata is matched by containment" },
    })
    .get("/:chunkId", ({ principal, params }) => chunks.get(principal.orgId, params.chunkId), {
      params: Id,
      response: Chunk,
      detail: { summary: "Get a chunk with its body" },
    })
    .patch("/:chunkId", ({ principal, params, body }) => chunks.patch(principal.orgId, params.chunkId, body), {
      params: Id,
      body: ChunkPatch,
      response: Chunk,
      detail: { summary: "Repair a chunk: pages, metadata, body. Not re-embedded; hash unchanged" },
    })
    .delete(
      "/:chunkId",
      ({ principal, params }) => {
        chunks.remove(principal.orgId, params.chunkId);
        return ack(`Chunk ${params.chunkId} deleted`, ctx.clock.now());
      },
      { params: Id, response: Ack, detail: { summary: "Delete a chunk (soft, no undo)" } },
    );
}
