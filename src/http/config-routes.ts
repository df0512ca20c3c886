import { Elysia, t } from "elysia";
import type { AppContext } from "../context.ts";
import { authPlugin } from "./auth-plugin.ts";
import type { Services } from "./services.ts";

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

const BUILTIN = [
  { id: "builtin-hash-embed", role: "embedding", tier: "builtin", default: true, dims: 384 },
  { id: "builtin-extractive", role: "chat", tier: "builtin", default: true },
];

export function configRoutes(ctx: AppContext, services: Services) {
  return new Elysia({ prefix: "/v1/config", detail: { tags: ["Configuration"] } })
    .use(authPlugin(ctx))
    .get("/model", () => ({ items: (services as { models?: { list(): unknown[] } }).models?.list() ?? BUILTIN }), {
      response: t.Object({ items: t.Array(ModelView) }),
      detail: { summary: "Models valid for use, with the default per role" },
    });
}
