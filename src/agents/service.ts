import type { Db } from "../store/db.ts";
import { newId } from "../store/ids.ts";
import { iso, type Clock } from "../store/time.ts";
import { badRequest, conflict, notFound } from "../http/errors.ts";
import type { ModelRegistry } from "../models/registry.ts";
import { CORE_AGENTS, DEFAULT_AGENT, coreAgent, isCoreName, type CoreAgent } from "./core.ts";
import { PLATFORM_DEFAULTS, type ThinkingMode } from "./defaults.ts";
import { systemInstruction } from "./instruction.ts";
import { RESETTABLE, type Resettable } from "./schema.ts";

export { PLATFORM_DEFAULTS } from "./defaults.ts";
export { CORE_AGENTS, CORE_IDS, DEFAULT_AGENT } from "./core.ts";

export interface AgentView {
  id: string;
  name: string;
  description?: string;
  lock: boolean;
  orgId?: string;
  default: boolean;
  topK: number;
  rerank: boolean;
  rerankTopK?: number;
  rerankModel?: string;
  context?: string;
  behaviour?: string;
  spirit?: string;
  useHistory: boolean;
  historySize?: number;
  thinkingMode: ThinkingMode;
  temperature?: number;
  baseModel?: string;
  systemInstruction: string;
  createdAt?: string;
  updatedAt?: string;
}

/** What the answering pipeline runs on: every unset field replaced by the platform default. */
export interface ResolvedAgent {
  id: string;
  name: string;
  topK: number;
  rerank: boolean;
  /** Already capped at topK. */
  rerankTopK: number;
  rerankModel?: string;
  useHistory: boolean;
  historySize: number;
  thinkingMode: ThinkingMode;
  temperature: number;
  baseModel?: string;
  systemInstruction: string;
}

/** Writable fields; `null` on a nullable field un-sets it like `reset` does. */
export interface AgentInput {
  name?: string;
  description?: string | null;
  topK?: number;
  rerank?: boolean;
  rerankTopK?: number | null;
  rerankModel?: string | null;
  context?: string | null;
  behaviour?: string | null;
  spirit?: string | null;
  useHistory?: boolean;
  historySize?: number | null;
  thinkingMode?: ThinkingMode;
  temperature?: number | null;
  baseModel?: string | null;
}

interface Row {
  id: string;
  org_id: string;
  name: string;
  description: string | null;
  top_k: number;
  rerank: number;
  rerank_top_k: number | null;
  rerank_model: string | null;
  context: string | null;
  behaviour: string | null;
  spirit: string | null;
  use_history: number;
  history_size: number | null;
  thinking_mode: ThinkingMode;
  temperature: number | null;
  base_model: string | null;
  created_at: number;
  updated_at: number;
}

/** Field name → column; the order is the INSERT/UPDATE order. */
const COLUMNS = {
  name: "name",
  description: "description",
  topK: "top_k",
  rerank: "rerank",
  rerankTopK: "rerank_top_k",
  rerankModel: "rerank_model",
  context: "context",
  behaviour: "behaviour",
  spirit: "spirit",
  useHistory: "use_history",
  historySize: "history_size",
  thinkingMode: "thinking_mode",
  temperature: "temperature",
  baseModel: "base_model",
} as const satisfies Record<keyof AgentInput, keyof Row>;
type Field = keyof typeof COLUMNS;

const opt = <T>(v: T | null): T | undefined => (v === null ? undefined : v);

function coreView(a: CoreAgent): AgentView {
  return {
    id: a.id,
    name: a.name,
    description: a.description,
    lock: true,
    default: a.default,
    topK: PLATFORM_DEFAULTS.topK,
    rerank: PLATFORM_DEFAULTS.rerank,
    context: a.context,
    behaviour: a.behaviour,
    spirit: a.spirit,
    useHistory: PLATFORM_DEFAULTS.useHistory,
    thinkingMode: PLATFORM_DEFAULTS.thinkingMode,
    systemInstruction: systemInstruction(a),
  };
}

function rowView(r: Row): AgentView {
  const v: AgentView = {
    id: r.id,
    name: r.name,
    description: opt(r.description),
    lock: false,
    orgId: r.org_id,
    default: false,
    topK: r.top_k,
    rerank: r.rerank === 1,
    rerankTopK: opt(r.rerank_top_k),
    rerankModel: opt(r.rerank_model),
    context: opt(r.context),
    behaviour: opt(r.behaviour),
    spirit: opt(r.spirit),
    useHistory: r.use_history === 1,
    historySize: opt(r.history_size),
    thinkingMode: r.thinking_mode,
    temperature: opt(r.temperature),
    baseModel: opt(r.base_model),
    systemInstruction: systemInstruction(r),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  };
  // Absent means "follows the default": no key at all rather than `undefined`.
  for (const k of Object.keys(v) as (keyof AgentView)[]) if (v[k] === undefined) delete v[k];
  return v;
}

const toColumn = (f: Field, v: unknown): unknown => (typeof v === "boolean" ? (v ? 1 : 0) : v ?? null);

export function agentService(db: Db, clock: Clock, models: ModelRegistry) {
  const row = (orgId: string, id: string): Row | null =>
    db.query<Row, [string, string]>("SELECT * FROM agents WHERE org_id = ? AND id = ? AND deleted_at IS NULL").get(orgId, id);

  /** Checks the service cannot leave to the schema: blank names and models that must be listed. */
  function validate(b: AgentInput) {
    if (b.name !== undefined && b.name.trim() === "") throw badRequest("Invalid body field 'name': must not be blank");
    if (b.baseModel != null && !models.has(b.baseModel, "chat"))
      throw badRequest(`Invalid body field 'baseModel': '${b.baseModel}' is not a chat model listed by GET /v1/config/model`);
    if (b.rerankModel != null && !models.has(b.rerankModel, "rerank"))
      throw badRequest(`Invalid body field 'rerankModel': '${b.rerankModel}' is not a rerank model listed by GET /v1/config/model`);
  }

  /** 409 when the name is a core name or another live agent of the organization has it (exact comparison). */
  function assertNameFree(orgId: string, name: string, self?: string) {
    if (isCoreName(name)) throw conflict(`Agent name '${name}' is reserved by a core agent`);
    const taken = db
      .query<{ id: string }, [string, string]>("SELECT id FROM agents WHERE org_id = ? AND name = ? AND deleted_at IS NULL")
      .get(orgId, name);
    if (taken && taken.id !== self) throw conflict(`Agent name '${name}' is already used`, { agentId: taken.id });
  }

  /** The partial unique index catches a concurrent writer that slipped past the check. */
  const guarded = <T>(name: string | undefined, fn: () => T): T => {
    try {
      return fn();
    } catch (e) {
      if (e instanceof Error && /UNIQUE constraint failed: agents/.test(e.message)) throw conflict(`Agent name '${name}' is already used`);
      throw e;
    }
  };

  function getView(orgId: string, id: string): AgentView {
    const core = coreAgent(id);
    if (core) return coreView(core);
    const r = row(orgId, id);
    if (!r) throw notFound("Agent");
    return rowView(r);
  }

  function refuseCore(id: string, what: string) {
    if (coreAgent(id)) throw badRequest(`Core agents cannot be ${what}`);
  }

  return {
    /** Core agents first (in their fixed order), then the organization's own, oldest first. */
    list(orgId: string): AgentView[] {
      const own = db
        .query<Row, [string]>("SELECT * FROM agents WHERE org_id = ? AND deleted_at IS NULL ORDER BY created_at, id")
        .all(orgId);
      return [...CORE_AGENTS.map(coreView), ...own.map(rowView)];
    },

    /** A core agent or one of the organization's live agents; otherwise NOT_FOUND. */
    get: getView,

    create(orgId: string, body: AgentInput & { name: string }): AgentView {
      validate(body);
      const id = newId();
      const now = clock.now();
      const values: Record<Field, unknown> = {
        name: body.name,
        description: body.description,
        topK: body.topK ?? PLATFORM_DEFAULTS.topK,
        rerank: body.rerank ?? PLATFORM_DEFAULTS.rerank,
        rerankTopK: body.rerankTopK,
        rerankModel: body.rerankModel,
        context: body.context,
        behaviour: body.behaviour,
        spirit: body.spirit,
        useHistory: body.useHistory ?? PLATFORM_DEFAULTS.useHistory,
        historySize: body.historySize,
        thinkingMode: body.thinkingMode ?? PLATFORM_DEFAULTS.thinkingMode,
        temperature: body.temperature,
        baseModel: body.baseModel,
      };
      const fields = Object.keys(COLUMNS) as Field[];
      guarded(body.name, () =>
        db.transaction(() => {
          assertNameFree(orgId, body.name);
          db.query(
            `INSERT INTO agents (id, org_id, ${fields.map((f) => COLUMNS[f]).join(", ")}, created_at, updated_at)
             VALUES (?, ?, ${fields.map(() => "?").join(", ")}, ?, ?)`,
          ).run(id, orgId, ...(fields.map((f) => toColumn(f, values[f])) as never[]), now, now);
        }).immediate(),
      );
      return rowView(row(orgId, id)!);
    },

    /**
     * Omitted fields stay; `reset` (only the nine nullable fields, else 400 naming it) un-sets
     * fields after the body is applied. Renaming onto a core name or a live sibling's name → 409;
     * keeping the current name is never a conflict, even when it has since become a core name.
     */
    patch(orgId: string, id: string, body: AgentInput & { reset?: string[] }): AgentView {
      refuseCore(id, "modified");
      if (!row(orgId, id)) throw notFound("Agent");
      const { reset = [], ...input } = body;
      for (const [i, name] of reset.entries()) {
        if (!(RESETTABLE as readonly string[]).includes(name))
          // Quoted in part: a name may be megabytes long, and the refusal would carry it all back.
          throw badRequest(`Invalid body field 'reset[${i}]': '${name.slice(0, 64)}' cannot be reset (allowed: ${RESETTABLE.join(", ")})`);
      }
      validate(input);
      const changes = new Map<Field, unknown>();
      for (const f of Object.keys(COLUMNS) as Field[]) if (input[f] !== undefined) changes.set(f, input[f]);
      for (const f of reset as Resettable[]) changes.set(f, null);
      guarded(input.name, () =>
        db.transaction(() => {
          const r = row(orgId, id);
          if (!r) throw notFound("Agent");
          if (input.name !== undefined && input.name !== r.name) assertNameFree(orgId, input.name, id);
          const now = Math.max(clock.now(), r.updated_at + 1);
          const set = [...changes.keys()].map((f) => `${COLUMNS[f]} = ?`);
          db.query(`UPDATE agents SET ${[...set, "updated_at = ?"].join(", ")} WHERE org_id = ? AND id = ?`).run(
            ...([...changes].map(([f, v]) => toColumn(f, v)) as never[]),
            now,
            orgId,
            id,
          );
        }).immediate(),
      );
      return rowView(row(orgId, id)!);
    },

    /** Soft delete: 404 everywhere afterwards, the name is free at once, past posts keep the id. */
    remove(orgId: string, id: string): void {
      refuseCore(id, "deleted");
      const n = db
        .query("UPDATE agents SET deleted_at = ? WHERE org_id = ? AND id = ? AND deleted_at IS NULL")
        .run(clock.now(), orgId, id).changes;
      if (n === 0) throw notFound("Agent");
    },

    /**
     * The settings a query runs on. No id → the platform default agent. An id the organization
     * cannot see (unknown, deleted, another organization's) → NOT_FOUND, before anything is stored.
     */
    resolve(orgId: string, agentId?: string): ResolvedAgent {
      if (agentId !== undefined && !coreAgent(agentId) && !row(orgId, agentId)) throw notFound("Agent", "agentId");
      const v = getView(orgId, agentId ?? DEFAULT_AGENT.id);
      const topK = v.topK;
      return {
        id: v.id,
        name: v.name,
        topK,
        rerank: v.rerank,
        rerankTopK: Math.min(v.rerankTopK ?? PLATFORM_DEFAULTS.rerankTopK, topK),
        rerankModel: v.rerankModel,
        useHistory: v.useHistory,
        historySize: v.historySize ?? PLATFORM_DEFAULTS.historySize,
        thinkingMode: v.thinkingMode,
        temperature: v.temperature ?? PLATFORM_DEFAULTS.temperature,
        baseModel: v.baseModel,
        systemInstruction: v.systemInstruction,
      };
    },
  };
}
export type AgentService = ReturnType<typeof agentService>;
