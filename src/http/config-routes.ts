import { Elysia, t } from "elysia";
import type { AppContext } from "../context.ts";
import { authPlugin } from "./auth-plugin.ts";

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

export function configRoutes(ctx: AppContext) {
  return new Elysia({ prefix: "/v1/config", detail: { tags: ["Configuration"] } })
    .use(authPlugin(ctx))
    .get("/model", () => ({ items: ctx.models.list() }), {
      response: t.Object({ items: t.Array(ModelView) }),
      detail: { summary: "Models valid for use, with the default per role" },
    });
}
