import type { CorpusService } from "../corpus/service.ts";
import type { SessionService } from "../sessions/service.ts";
import type { AgentService } from "../agents/service.ts";
import type { UsageService } from "../usage/service.ts";

/** The services built once at start and shared by the routes. */
export interface Services {
  corpora: CorpusService;
  sessions: SessionService;
  agents: AgentService;
  usage: UsageService;
}
