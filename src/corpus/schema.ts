import { t } from "elysia";
import { DisplayName, Metadata, StoredMetadata } from "../http/paging.ts";

/** `name` is required on create (1–256 characters): a corpus without a name cannot be told apart in a list. */
export const CorpusCreate = t.Object({
  name: DisplayName(256),
  description: t.Optional(t.Nullable(t.String({ maxLength: 10_000 }))),
  metadata: t.Optional(Metadata),
});

export const CorpusPatch = t.Object({
  name: t.Optional(DisplayName(256)),
  description: t.Optional(t.Nullable(t.String({ maxLength: 10_000 }))),
  metadata: t.Optional(Metadata),
});

export const Corpus = t.Object({
  id: t.String({ format: "uuid" }),
  name: t.String(),
  description: t.Optional(t.Nullable(t.String())),
  // Values read back are not bounded: a row stored before the depth limit must still be readable.
  metadata: StoredMetadata,
  createdAt: t.String(),
  updatedAt: t.String(),
});

export const CorpusPage = t.Object({
  pageIndex: t.Integer(),
  pageSize: t.Integer(),
  total: t.Integer(),
  items: t.Array(Corpus),
});
