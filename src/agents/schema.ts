import { t } from "elysia";
import { DisplayName, Timestamp } from "../http/paging.ts";

const Text = (max: number, description: string) => t.Nullable(t.String({ maxLength: max, description }));

/**
 * Agent fields a client may send. Only `name` is required on create; every other field follows
 * the platform default when omitted (the nullable ones stay unset and keep following it).
 * `id`, `lock`, `default`, `orgId`, `systemInstruction` are read-only and stripped when sent.
 */
const fields = {
  description: t.Optional(Text(2_000, "Free text; nullable, resettable")),
  topK: t.Optional(t.Integer({ title: "topK", minimum: 1, maximum: 100, description: "Chunks retrieved before re-ranking, 1 to 100" })),
  rerank: t.Optional(t.Boolean({ description: "Re-rank with rerankModel; true without rerankModel runs nothing" })),
  rerankTopK: t.Optional(t.Nullable(t.Integer({ title: "rerankTopK", minimum: 1, maximum: 100, description: "Chunks kept after re-ranking, 1 to 100 (capped at topK when used)" }))),
  rerankModel: t.Optional(Text(200, "A model listed with role rerank by GET /v1/config/model")),
  context: t.Optional(Text(20_000, "First part of the system instruction")),
  behaviour: t.Optional(Text(20_000, "Second part of the system instruction")),
  spirit: t.Optional(Text(20_000, "Third part of the system instruction")),
  useHistory: t.Optional(t.Boolean({ description: "false answers each question alone" })),
  historySize: t.Optional(t.Nullable(t.Integer({ title: "historySize", minimum: 0, maximum: 100, description: "Last N posts replayed, 0 to 100" }))),
  thinkingMode: t.Optional(t.Union([t.Literal("LOW"), t.Literal("HIGH")], { description: "LOW or HIGH" })),
  // Numeric: like every number of the API, its string form ("0.5") is accepted too.
  // A number's string form is range-checked after Elysia decodes it, which loses the field's
  // name: `title` carries it (http/error-handler.ts), on every number of this body.
  temperature: t.Optional(t.Nullable(t.Numeric({ title: "temperature", minimum: 0, maximum: 1, description: "0 to 1" }))),
  baseModel: t.Optional(Text(200, "A model listed with role chat by GET /v1/config/model")),
};

const Name = DisplayName(200, "Unique among the organization's live agents and the core agents (exact comparison)");

// additionalProperties: read-only fields sent back (id, lock, systemInstruction…) are accepted and ignored.
export const AgentCreate = t.Object({ name: Name, ...fields }, { additionalProperties: true });

export const RESETTABLE = ["description", "rerankTopK", "context", "behaviour", "spirit", "historySize", "temperature", "rerankModel", "baseModel"] as const;
export type Resettable = (typeof RESETTABLE)[number];

export const AgentPatch = t.Object({
  name: t.Optional(Name),
  ...fields,
  reset: t.Optional(t.Array(t.String(), { description: `Fields to un-set after the body is applied: ${RESETTABLE.join(", ")}` })),
}, { additionalProperties: true });

export const Agent = t.Object({
  id: t.String({ format: "uuid" }),
  name: t.String(),
  description: t.Optional(t.String()),
  lock: t.Boolean(),
  orgId: t.Optional(t.String()),
  default: t.Boolean(),
  topK: t.Integer(),
  rerank: t.Boolean(),
  rerankTopK: t.Optional(t.Integer()),
  rerankModel: t.Optional(t.String()),
  context: t.Optional(t.String()),
  behaviour: t.Optional(t.String()),
  spirit: t.Optional(t.String()),
  useHistory: t.Boolean(),
  historySize: t.Optional(t.Integer()),
  thinkingMode: t.Union([t.Literal("LOW"), t.Literal("HIGH")]),
  temperature: t.Optional(t.Number()),
  baseModel: t.Optional(t.String()),
  systemInstruction: t.String({ description: "Read-only: the resolved instruction the model receives" }),
  createdAt: t.Optional(Timestamp()),
  updatedAt: t.Optional(Timestamp()),
});

export const AgentList = t.Array(Agent);
