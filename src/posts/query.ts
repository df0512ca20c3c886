import { normalLang } from "../http/paging.ts";
import { confinedTo } from "../auth/jwt.ts";
import type { AppContext } from "../context.ts";
import { AppError, badRequest, notFound } from "../http/errors.ts";
import { detectLang } from "../models/lang.ts";
import { ModelAbortedError, ModelBusyError, UnknownModelError } from "../models/errors.ts";
import type { AnswerResult } from "../models/types.ts";
import { recordUsage } from "../usage/record.ts";
import { retrieve } from "../retrieval/retrieve.ts";
import { citedRefs, rerankChunks, retrievalText, toPassages } from "../retrieval/prompt.ts";
import { insertCitations } from "./citations.ts";
import { splitTokens } from "./usage-split.ts";
import type { PostService, PostView, SessionLookup } from "./service.ts";

/** The fields of agents/service.ts ResolvedAgent the pipeline reads. */
export interface QueryAgent {
  id: string;
  topK: number;
  rerank: boolean;
  rerankTopK?: number | null;
  rerankModel?: string | null;
  useHistory: boolean;
  historySize: number;
  thinkingMode: "LOW" | "HIGH";
  temperature: number;
  baseModel?: string | null;
  systemInstruction: string;
}

export interface AgentLookup {
  /** Throws 404 when the agent is not visible to the organization; no id → the platform default. */
  resolve(orgId: string, agentId?: string): QueryAgent | Promise<QueryAgent>;
}

export interface QueryInput {
  sessionId: string;
  body: string;
  lang?: string;
  agentId?: string;
}

export interface Asker {
  orgId: string;
  userId: string;
  /** Reaches only its own sessions (auth/jwt.ts confinedTo). */
  confined?: boolean;
}

export interface Prepared {
  orgId: string;
  userId: string;
  sessionId: string;
  corpusIds: string[];
  agent: QueryAgent;
  /** What an old session set for answering; empty on sessions created since. */
  session: SessionSettings;
  question: string;
  lang: string;
  /**
   * Set when the session is to be opened with this exchange (the first-generation widget):
   * `sessionId` is then empty, and the session is created in the exchange's transaction.
   */
  open?: (at: number) => string;
}

/** A session to open with the first exchange: `check` refuses as creating would, `create` writes it. */
export interface SessionOpener {
  check(): string[];
  create(at: number): string;
}

/**
 * An old session's answering settings (spec, Versioning: "old sessions keep theirs"). They rank
 * against the agent as the spec's Agent table says: the agent's `baseModel` wins over the
 * session's model ("Unset keeps the session's model"), while the session's temperature and
 * thinking win over the agent's ("Used only when the session left … unset").
 */
export interface SessionSettings {
  model?: string;
  temperature?: number;
  thinking?: "LOW" | "HIGH";
  /** An old session's own instruction: the model receives it after the agent's (both are kept). */
  system?: string;
}

/**
 * The usable part of a session's stored legacy fields. Imported rows were not validated by
 * this service: a value it cannot run on counts as unset, so the session still answers, on
 * the agent's or the platform's setting. That includes a model no longer listed by
 * GET /v1/config/model, which would otherwise refuse every question of the session.
 */
export function sessionSettings(
  s: { model?: unknown; temperature?: unknown; thinking?: unknown; system?: unknown },
  isChatModel: (id: string) => boolean,
): SessionSettings {
  const out: SessionSettings = {};
  if (typeof s.model === "string" && isChatModel(s.model)) out.model = s.model;
  // The OpenAI wire range; agents are held to 0–1, old sessions were not.
  if (typeof s.temperature === "number" && s.temperature >= 0 && s.temperature <= 2) out.temperature = s.temperature;
  const thinking = typeof s.thinking === "string" ? s.thinking.toUpperCase() : undefined;
  if (thinking === "LOW" || thinking === "HIGH") out.thinking = thinking;
  if (typeof s.system === "string" && s.system.trim()) out.system = s.system.trim().slice(0, SESSION_SYSTEM_MAX);
  return out;
}

/** Characters of an old session's instruction passed on: it shares the model's context with the passages. */
export const SESSION_SYSTEM_MAX = 4000;

export interface Exchange {
  query: PostView;
  answer: PostView;
}

/** Model-layer errors as API errors (the models folder stays HTTP-free). */
export function modelError(e: unknown): unknown {
  if (e instanceof UnknownModelError) return new AppError("BAD_REQUEST", e.message);
  if (e instanceof ModelBusyError) return new AppError("UNAVAILABLE", e.message);
  if (e instanceof ModelAbortedError) return new AppError("BAD_REQUEST", e.message);
  return e;
}

/** What the pipeline needs of sessions: the lookup, and whether one is still live when its exchange is stored. */
export interface LiveSessions extends SessionLookup {
  exists(orgId: string, id: string): boolean;
}

export function queryService(ctx: AppContext, deps: { posts: PostService; sessions: LiveSessions; agents: AgentLookup }) {
  const { db, clock } = ctx;
  const { posts, sessions, agents } = deps;

  return {
    /**
     * Everything that can refuse the query, before anything is written: the agent first (an
     * invisible agent → 404 and no post), then the session.
     */
    async prepare(who: Asker, input: QueryInput, open?: SessionOpener): Promise<Prepared> {
      const agent = await agents.resolve(who.orgId, input.agentId || undefined);
      // The request schemas (Question) refuse blanks alone, naming where they came from; this
      // guards callers that skip them.
      const question = input.body.trim();
      if (!question) throw badRequest("Invalid field 'body': the question is empty");
      const lang = normalLang(input.lang) ?? detectLang(question);
      // `open` (the first-generation widget) is for when no session is given. Its session is only
      // checked here and written with the exchange, so neither a refused query nor a model that
      // fails on the first question leaves an empty session behind (its id reaches the client
      // only in the answer).
      if (!input.sessionId && open) {
        return { orgId: who.orgId, userId: who.userId, sessionId: "", corpusIds: open.check(), agent, session: {}, question, lang, open: open.create };
      }
      const session = sessions.get(who.orgId, input.sessionId, confinedTo(who));
      const settings = sessionSettings(session, (id) => ctx.models.has(id, "chat"));
      return { orgId: who.orgId, userId: who.userId, sessionId: session.id, corpusIds: session.corpusIds, agent, session: settings, question, lang };
    },

    /**
     * Retrieves, answers, then stores the question and the answer (with its citations and token
     * usage) in one transaction: an exchange is kept whole or not at all. A question stored first
     * stayed in the session unanswered whenever the model failed, the client went away or the
     * server stopped in between, and its retry then showed the question twice.
     */
    async run(
      p: Prepared,
      opts: { onToken?: (t: string) => void; signal?: AbortSignal; recheck?: () => Promise<void> } = {},
    ): Promise<Exchange> {
      const { orgId, userId, agent, session } = p;
      const usageCorpusId = p.corpusIds[0] ?? null;
      // History is read before the question is stored, so it holds earlier posts only.
      const history = agent.useHistory && !p.open ? posts.history(orgId, p.sessionId, agent.historySize) : [];
      const base = { userId, lang: p.lang, agentId: agent.id, usageCorpusId };
      const askedAt = clock.now();

      let result: AnswerResult;
      let chunks;
      try {
        chunks = await retrieve(ctx, orgId, p.corpusIds, retrievalText(p.question, history), { topK: agent.topK, mode: "hybrid" });
        if (agent.rerank && agent.rerankModel) {
          const reranker = ctx.models.reranker(agent.rerankModel);
          if (reranker) chunks = await rerankChunks(reranker, p.question, chunks, agent.rerankTopK ?? agent.topK);
        }
        result = await ctx.models.answerer(agent.baseModel ?? session.model).answer({
          question: p.question, lang: p.lang, system: session.system ? `${agent.systemInstruction}\n\n${session.system}` : agent.systemInstruction, history, passages: toPassages(chunks),
          temperature: session.temperature ?? agent.temperature, thinking: session.thinking ?? agent.thinkingMode,
          signal: opts.signal, onToken: opts.onToken,
        });
      } catch (e) {
        // Stopped on purpose (the client went away, or its credential was revoked mid-stream):
        // tiers throw the signal's own reason, which the error handler took for a server failure.
        if (opts.signal?.aborted && !(e instanceof AppError)) throw modelError(new ModelAbortedError());
        throw modelError(e);
      }

      // The caller's credential, checked again once the answer exists and before anything is
      // stored: one revoked (or expired) meanwhile fails the request (spec, Authentication rule
      // 4) and leaves no posts, where checking after the store had answered 403 for an exchange
      // it kept. Nothing awaits between this check and the transaction below.
      let refused: unknown;
      if (opts.recheck) await opts.recheck().catch((e) => (refused = e ?? new Error("credential refused")));

      // An answer without markers stands on every passage the model was shown (not on those left out to fit its context).
      const refs = citedRefs(result.cited, result.answered, Math.min(chunks.length, result.shown ?? chunks.length));
      const cited = refs.map((ref) => ({ ...chunks[ref - 1]!, ref }));
      const now = Math.max(clock.now(), askedAt);
      let unopened: unknown;
      const stored = db.transaction(() => {
        // The tokens were spent (and, streamed, may have reached the client) whatever becomes of the exchange.
        const total = Math.max(0, Math.round(result.promptTokens + result.completionTokens));
        for (const s of splitTokens(total, p.corpusIds, chunks.map((c) => c.corpusId))) {
          recordUsage(db, orgId, { metric: "tokens", op: "used", amount: s.amount, at: now, userId, corpusId: s.corpusId, source: "post" });
        }
        if (refused !== undefined) return null;
        // Deleted (itself or through a corpus) while the model answered: posts stored there would
        // answer 404 at once yet count as created, and the 200 would contradict the deletion.
        let sessionId = p.sessionId;
        if (p.open) {
          try {
            sessionId = p.open(askedAt);
          } catch (e) {
            unopened = e; // a corpus deleted while the model answered: the tokens stay counted
            return null;
          }
        } else if (!sessions.exists(orgId, sessionId)) return null;
        const q = posts.insert(orgId, { ...base, sessionId, owner: "USER", body: p.question }, askedAt);
        const r = posts.insert(orgId, {
          ...base, sessionId, owner: "SYSTEM", body: result.text, attachment: cited.length, model: result.model,
          promptTokens: result.promptTokens, completionTokens: result.completionTokens,
        }, now);
        insertCitations(db, orgId, r.id, cited.map((c) => ({ chunkId: c.chunkId, documentId: c.documentId, generation: c.generation, pages: c.pages, ref: c.ref })));
        return [q, r] as const;
      })();
      if (!stored) throw refused ?? unopened ?? notFound("Session");
      const [query, answer] = posts.views(orgId, [...stored]);
      return { query: query!, answer: answer! };
    },
  };
}
export type QueryService = ReturnType<typeof queryService>;
