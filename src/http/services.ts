import type { CorpusService } from "../corpus/service.ts";
import type { ChunkService } from "../chunks/service.ts";
import type { DocumentService } from "../documents/service.ts";
import type { Presigner } from "../storage/presigner.ts";
import type { PostService } from "../posts/service.ts";
import type { QueryService } from "../posts/query.ts";
import type { SessionService } from "../sessions/service.ts";
import type { AgentService } from "../agents/service.ts";
import type { UsageService } from "../usage/service.ts";

/** The services built once at start and shared by the routes. */
export interface Services {
  corpora: CorpusService;
  chunks: ChunkService;
  documents: DocumentService;
  /** Presigned storage URLs; `storageSecret` signs and verifies them (src/storage). */
  presigner: Presigner;
  storageSecret: Buffer;
  posts: PostService;
  queries: QueryService;
  sessions: SessionService;
  agents: AgentService;
  usage: UsageService;
}
