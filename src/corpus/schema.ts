import { t } from "elysia";
import { DisplayName, Metadata, StoredMetadata, Timestamp } from "../http/paging.ts";

/**
 * A corpus's name: 1–256 characters, not only blanks, no control characters. The CLI's
 * `org create` checks an organization's name against this same rule.
 */
export const CorpusName = DisplayName(256);

/** `name` is required on create: a corpus without a name cannot be told apart in a list. */
export const CorpusCreate = t.Object({
  name: CorpusName,
  description: t.Optional(t.Nullable(t.String({ maxLength: 10_000 }))),
  metadata: t.Optional(Metadata),
});

export const CorpusPatch = t.Object({
  name: t.Optional(CorpusName),
  description: t.Optional(t.Nullable(t.String({ maxLength: 10_000 }))),
  metadata: t.Optional(Metadata),
});

export const Corpus = t.Object({
  id: t.String({ format: "uuid" }),
  name: t.String(),
  description: t.Optional(t.Nullable(t.String())),
  // Values read back are not bounded: a row stored before the depth limit must still be readable.
  metadata: StoredMetadata,
  createdAt: Timestamp(),
  updatedAt: Timestamp(),
});

export const CorpusPage = t.Object({
  pageIndex: t.Integer(),
  pageSize: t.Integer(),
  total: t.Integer(),
  items: t.Array(Corpus),
});
