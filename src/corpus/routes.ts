import { Elysia, t } from "elysia";
import type { AppContext } from "../context.ts";
import { authPlugin } from "../http/auth-plugin.ts";
import { Ack, ack, PageQuery, paging } from "../http/paging.ts";
import { Corpus, CorpusCreate, CorpusPage, CorpusPatch } from "./schema.ts";
import type { CorpusService } from "./service.ts";

const Id = t.Object({ corpusId: t.String({ format: "uuid" }) });

export function corpusRoutes(ctx: AppContext, corpora: CorpusService) {
  return new Elysia({ prefix: "/v1/corpus", detail: { tags: ["Corpus"] } })
    .use(authPlugin(ctx))
    .post("/", ({ principal, body }) => corpora.create(principal.orgId, principal.userId, body), {
      body: CorpusCreate,
      response: Corpus,
      detail: { summary: "Create a corpus" },
    })
    .get("/", ({ principal, query }) => corpora.list(principal.orgId, paging(query)), {
      query: t.Object(PageQuery),
      response: CorpusPage,
      detail: { summary: "List corpora, newest first" },
    })
    .get("/:corpusId", ({ principal, params }) => corpora.get(principal.orgId, params.corpusId), {
      params: Id,
      response: Corpus,
      detail: { summary: "Get a corpus" },
    })
    .patch("/:corpusId", ({ principal, params, body }) => corpora.patch(principal.orgId, params.corpusId, body), {
      params: Id,
      body: CorpusPatch,
      response: Corpus,
      detail: { summary: "Update a corpus; omitted fields keep their value" },
    })
    .put("/:corpusId", ({ principal, params, body }) => corpora.patch(principal.orgId, params.corpusId, body), {
      params: Id,
      body: CorpusPatch,
      detail: { hide: true, deprecated: true },
    })
    .delete(
      "/:corpusId",
      ({ principal, params }) => {
        corpora.remove(principal.orgId, principal.userId, params.corpusId);
        ctx.corpusDrops?.kick();
        return ack(`Corpus ${params.corpusId} deleted`, ctx.clock.now());
      },
      { params: Id, response: Ack, detail: { summary: "Delete a corpus (soft), cascading to its documents, chunks and sessions" } },
    );
}
