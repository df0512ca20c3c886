import type { CorpusService } from "../corpus/service.ts";
import type { PostService } from "../posts/service.ts";
import type { QueryService } from "../posts/query.ts";
import type { SessionService } from "../sessions/service.ts";
import type { AgentService } from "../agents/service.ts";
import type { UsageService } from "../usage/service.ts";

/** The services built once at start and shared by the routes. */
export interface Services {
  corpora: CorpusService;
  posts: PostService;
  queries: QueryService;
  sessions: SessionService;
  agents: AgentService;
  usage: UsageService;
}
