import { t } from "elysia";
import { Metadata, PageQuery, StoredMetadata, Timestamp } from "../http/paging.ts";

/**
 * `corpusIds` is required (one or more live corpora of the organization); `metadata` is optional.
 * The retired `model`, `system`, `temperature`, `thinking` are not in the schema, so they are
 * accepted and dropped (spec, Versioning).
 */
export const SessionCreate = t.Object({
  corpusIds: t.Array(t.String({ format: "uuid" }), { minItems: 1, maxItems: 100, description: "One or more corpora of the organization" }),
  metadata: t.Optional(Metadata),
}, { additionalProperties: true });

// additionalProperties: unknown and retired fields are accepted and ignored whatever the app's
// normalisation setting; the service reads only the fields it knows.
export const SessionPatch = t.Object({
  metadata: t.Optional(Metadata),
}, { additionalProperties: true });

export const Session = t.Object({
  id: t.String({ format: "uuid" }),
  orgId: t.String(),
  userId: t.String(),
  corpusIds: t.Array(t.String({ format: "uuid" })),
  metadata: StoredMetadata,
  createdAt: Timestamp(),
  updatedAt: Timestamp(),
  // Only on sessions created before the Versioning change (never on new ones).
  model: t.Optional(t.Unknown()),
  system: t.Optional(t.Unknown()),
  temperature: t.Optional(t.Unknown()),
  thinking: t.Optional(t.Unknown()),
});

const Filters = t.Object({
  userId: t.Optional(t.String()),
  corpusId: t.Optional(t.String({ format: "uuid" })),
  key: t.Optional(t.String()),
  value: t.Optional(t.String()),
  json: t.Optional(StoredMetadata),
});

export const SessionPage = t.Object({
  orgId: t.String(),
  pageIndex: t.Integer(),
  pageSize: t.Integer(),
  total: t.Integer(),
  items: t.Array(Session),
  filters: Filters,
});

/** A uuid or empty (empty counts as absent); anything else → 400 naming the parameter. */
const OptionalUuid = (name: string, description: string) =>
  t.Optional(t.String({ title: name, pattern: "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})?$", description }));

export const SessionQuery = t.Object({
  userId: t.Optional(t.String({ description: "Exact owner; empty counts as absent" })),
  corpusId: OptionalUuid("corpusId", "Sessions bound to this corpus (any of their corpora); outside the organization → 403"),
  key: t.Optional(t.String({ description: "Metadata key; needs value" })),
  value: t.Optional(t.String({ description: "Metadata value; needs key" })),
  json: t.Optional(t.String({ description: "JSON object fragment matched by containment; wins over key/value" })),
  ...PageQuery,
});

export const ByUserQuery = t.Object({
  userId: t.Optional(t.String()),
  corpusId: OptionalUuid("corpusId", "Sessions bound to this corpus"),
  ...PageQuery,
});

export const ByMetadataQuery = t.Object({
  key: t.String({ minLength: 1, title: "key" }),
  value: t.String({ title: "value" }),
  ...PageQuery,
});
