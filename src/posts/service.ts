import type { Db } from "../store/db.ts";
import { orderedId } from "../store/ids.ts";
import { iso, type Clock } from "../store/time.ts";
import { notFound } from "../http/errors.ts";
import { offsetOf, type Paging } from "../http/paging.ts";
import type { ChatMessage } from "../models/types.ts";
import { recordUsage } from "../usage/record.ts";
import { liveCitationCounts } from "./citations.ts";

export type Owner = "USER" | "SYSTEM";

export interface PostView {
  id: string;
  sessionId: string;
  owner: Owner;
  body: string;
  lang: string;
  agentId: string;
  attachment: number;
  createdAt: string;
}

export interface PostRow {
  id: string;
  org_id: string;
  session_id: string;
  user_id: string | null;
  owner: Owner;
  body: string;
  lang: string;
  agent_id: string;
  attachment: number;
  usage_corpus_id: string | null;
  created_at: number;
  deleted_at: number | null;
}

export interface NewPost {
  sessionId: string;
  userId: string;
  owner: Owner;
  body: string;
  lang: string;
  agentId: string;
  /** Corpus the post counts against in usage reports (the session's first corpus). */
  usageCorpusId: string | null;
  attachment?: number;
  model?: string;
  promptTokens?: number;
  completionTokens?: number;
}

/** The posts a session needs to see: sessions are checked by the caller (sessionService.get). */
export interface SessionLookup {
  /** `model`, `temperature`, `thinking`: only on sessions created before the Versioning change, as stored. */
  get(orgId: string, id: string, owner?: string): { id: string; corpusIds: string[]; model?: unknown; temperature?: unknown; thinking?: unknown };
}

/** Most recent first; `size` posts, returned in chronological order as chat turns. */
export function selectHistory(rows: Pick<PostRow, "owner" | "body">[], size: number): ChatMessage[] {
  const n = Math.max(0, Math.trunc(size));
  if (n === 0) return [];
  return rows.slice(0, n).reverse().map((r) => ({ role: r.owner === "USER" ? "user" : "assistant", content: r.body }));
}

export function postService(db: Db, clock: Clock, sessions: SessionLookup) {
  const row = (orgId: string, id: string): PostRow | null =>
    db.query<PostRow, [string, string]>("SELECT * FROM posts WHERE org_id = ? AND id = ? AND deleted_at IS NULL").get(orgId, id);

  /** A post is visible while it and its session are live (and the session `owner`'s, when given: auth/jwt.ts confinedTo). */
  const visible = (orgId: string, id: string, owner?: string): PostRow => {
    const r = row(orgId, id);
    if (!r) throw notFound("Post");
    try {
      sessions.get(orgId, r.session_id, owner);
    } catch {
      throw notFound("Post");
    }
    return r;
  };

  /** The stored `attachment` is what the answer cited when written; reads count what is still live. */
  const views = (orgId: string, rows: PostRow[]): PostView[] => {
    const counts = liveCitationCounts(db, orgId, rows.filter((r) => r.owner === "SYSTEM").map((r) => r.id));
    return rows.map((r) => ({
      id: r.id, sessionId: r.session_id, owner: r.owner, body: r.body, lang: r.lang, agentId: r.agent_id,
      attachment: r.owner === "SYSTEM" ? (counts.get(r.id) ?? 0) : 0, createdAt: iso(r.created_at),
    }));
  };

  return {
    views,
    visible,

    /** Inserts a post and counts it; call inside the caller's transaction when more is written with it. */
    insert(orgId: string, p: NewPost, at = clock.now()): PostRow {
      const id = orderedId();
      db.query(
        `INSERT INTO posts (id, org_id, session_id, user_id, owner, body, lang, agent_id, attachment, model, prompt_tokens,
           completion_tokens, usage_corpus_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(id, orgId, p.sessionId, p.userId, p.owner, p.body, p.lang, p.agentId, p.attachment ?? 0, p.model ?? null,
        p.promptTokens ?? null, p.completionTokens ?? null, p.usageCorpusId, at);
      recordUsage(db, orgId, { metric: "posts", op: "created", amount: 1, at, userId: p.userId, corpusId: p.usageCorpusId, source: "post" });
      return row(orgId, id)!;
    },

    get(orgId: string, id: string, owner?: string): PostView {
      return views(orgId, [visible(orgId, id, owner)])[0]!;
    },

    list(orgId: string, sessionId: string, p: Paging, order: "ASC" | "DESC", owner?: string) {
      sessions.get(orgId, sessionId, owner);
      const total = db
        .query<{ n: number }, [string, string]>("SELECT count(*) AS n FROM posts WHERE org_id = ? AND session_id = ? AND deleted_at IS NULL")
        .get(orgId, sessionId)!.n;
      const dir: "ASC" | "DESC" = order === "ASC" ? "ASC" : "DESC";
      const rows = db
        .query<PostRow, [string, string, number, number]>(
          `SELECT * FROM posts WHERE org_id = ? AND session_id = ? AND deleted_at IS NULL
           ORDER BY created_at ${dir}, id ${dir} LIMIT ? OFFSET ?`,
        )
        .all(orgId, sessionId, p.pageSize, offsetOf(p));
      return { sessionId, order: dir, pageIndex: p.pageIndex, pageSize: p.pageSize, total, items: views(orgId, rows) };
    },

    /** The last `size` live posts of the session as chat turns, oldest first (a question and its answer are two). */
    history(orgId: string, sessionId: string, size: number): ChatMessage[] {
      if (size <= 0) return [];
      const rows = db
        .query<PostRow, [string, string, number]>(
          "SELECT owner, body FROM posts WHERE org_id = ? AND session_id = ? AND deleted_at IS NULL ORDER BY created_at DESC, id DESC LIMIT ?",
        )
        .all(orgId, sessionId, Math.trunc(size));
      return selectHistory(rows, size);
    },

    /** Soft delete. The removal counts against the post's author, so per-user created/removed balance. */
    remove(orgId: string, userId: string, id: string, owner?: string): void {
      const now = clock.now();
      db.transaction(() => {
        const r = visible(orgId, id, owner);
        db.query("UPDATE posts SET deleted_at = ? WHERE org_id = ? AND id = ?").run(now, orgId, id);
        recordUsage(db, orgId, { metric: "posts", op: "removed", amount: 1, at: now, userId: r.user_id ?? userId, corpusId: r.usage_corpus_id, source: "post" });
      })();
    },
  };
}
export type PostService = ReturnType<typeof postService>;
