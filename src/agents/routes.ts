import { Elysia, t } from "elysia";
import type { AppContext } from "../context.ts";
import { authPlugin } from "../http/auth-plugin.ts";
import { Ack, ack } from "../http/paging.ts";
import { Agent, AgentCreate, AgentList, AgentPatch } from "./schema.ts";
import type { AgentService } from "./service.ts";

const Id = t.Object({ agentId: t.String({ format: "uuid" }) });

export function agentRoutes(ctx: AppContext, agents: AgentService) {
  return new Elysia({ prefix: "/v1/agent", detail: { tags: ["Agent"] } })
    .use(authPlugin(ctx))
    .get("/", ({ principal }) => agents.list(principal.orgId), {
      response: AgentList,
      detail: { summary: "List agents: the core agents first, then the organization's own, oldest first" },
    })
    .get("/:agentId", ({ principal, params }) => agents.get(principal.orgId, params.agentId), {
      params: Id,
      response: Agent,
      detail: { summary: "Get an agent (core or own)" },
    })
    .post("/", ({ principal, body }) => agents.create(principal.orgId, body), {
      body: AgentCreate,
      response: Agent,
      detail: { summary: "Create a custom agent; only name is required, unset fields follow the platform defaults" },
    })
    .patch("/:agentId", ({ principal, params, body }) => agents.patch(principal.orgId, params.agentId, body), {
      params: Id,
      body: AgentPatch,
      response: Agent,
      detail: { summary: "Update a custom agent; omitted fields stay, `reset` un-sets nullable fields after the body" },
    })
    .delete(
      "/:agentId",
      ({ principal, params }) => {
        agents.remove(principal.orgId, params.agentId);
        return ack(`Agent ${params.agentId} deleted`, ctx.clock.now());
      },
      { params: Id, response: Ack, detail: { summary: "Delete a custom agent (its name is free at once)" } },
    );
}
