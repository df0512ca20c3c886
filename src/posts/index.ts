import type { AppContext } from "../context.ts";
import { postService } from "./service.ts";
import { queryService, type AgentLookup, type LiveSessions } from "./query.ts";

/** The two services of the posts domain, built over the session and agent services they consult. */
export function postServices(ctx: AppContext, sessions: LiveSessions, agents: AgentLookup) {
  const posts = postService(ctx.db, ctx.clock, sessions);
  return { posts, queries: queryService(ctx, { posts, sessions, agents }) };
}
