import { Elysia, t } from "elysia";
import type { AppContext } from "../context.ts";
import { authPlugin } from "./auth-plugin.ts";
import { indexStatusOf } from "../store/switching-index.ts";

const ModelView = t.Object({
  id: t.String(),
  role: t.String(),
  tier: t.String(),
  default: t.Boolean(),
  dims: t.Optional(t.Integer()),
  contextLength: t.Optional(t.Integer()),
  licence: t.Optional(t.String()),
  description: t.Optional(t.String()),
});

/** The vector index: which embedding model built the table searches read, and a rebuild in progress. */
const IndexView = t.Object({
  state: t.UnionEnum(["ready", "rebuilding"]),
  active: t.String({ description: "embedding model of the table searches read" }),
  building: t.Optional(t.String({ description: "embedding model being re-embedded into, while rebuilding" })),
  done: t.Integer({ description: "chunks re-embedded so far (last rebuild when ready)" }),
  total: t.Integer(),
});

export function configRoutes(ctx: AppContext) {
  return new Elysia({ prefix: "/v1/config", detail: { tags: ["Configuration"] } })
    .use(authPlugin(ctx))
    .get("/model", () => {
      const index = indexStatusOf(ctx.vectors);
      return { items: ctx.models.list(), ...(index ? { index } : {}) };
    }, {
      response: t.Object({ items: t.Array(ModelView), index: t.Optional(IndexView) }),
      detail: { summary: "Models valid for use, with the default per role" },
    });
}
