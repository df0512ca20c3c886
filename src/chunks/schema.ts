import { t } from "elysia";
import { Metadata, PageQuery, StoredMetadata } from "../http/paging.ts";

/** The published chunk. The vector and the old scalar `page` are deliberately absent. */
export const Chunk = t.Object({
  id: t.String({ format: "uuid" }),
  documentId: t.String({ format: "uuid" }),
  corpusId: t.String({ format: "uuid" }),
  pages: t.Array(t.Integer(), { description: "1-based, ascending; empty for a chunk tied to no page (the summary)" }),
  hash: t.String({ description: "MD5 of the text as stored at ingestion; never recomputed" }),
  metadata: StoredMetadata,
  body: t.Optional(t.String({ description: "the text; empty when the stored text is missing" })),
});

export const ChunkPage = t.Object({
  pageIndex: t.Integer(),
  pageSize: t.Integer(),
  total: t.Integer(),
  items: t.Array(Chunk),
});

const Body = t.Optional(t.Boolean({ title: "body", "x-rule": "true or false", description: "true includes the text; then pageSize is at most 25" }));

export const ChunkListQuery = t.Object({ body: Body, ...PageQuery });

export const ChunkSearchQuery = t.Object({
  corpusId: t.Optional(t.String({ format: "uuid", title: "corpusId" })),
  documentId: t.Optional(t.String({ format: "uuid", title: "documentId" })),
  hash: t.Optional(t.String({ title: "hash" })),
  page: t.Optional(t.Integer({ minimum: 1, title: "page", description: "1-based page that the span must cover" })),
  key: t.Optional(t.String({ minLength: 1, title: "key", description: "top-level metadata key; needs value" })),
  value: t.Optional(t.String({ title: "value", description: "matched as the string, and as the JSON scalar it spells (3, true, null)" })),
  json: t.Optional(t.String({ title: "json", description: "JSON object matched by containment; wins over key/value" })),
  body: Body,
  ...PageQuery,
});

/** id, documentId, corpusId and hash are not patchable: sent, they are ignored (stripped). */
export const ChunkPatch = t.Object({
  pages: t.Optional(t.Array(t.Integer({ title: "pages", minimum: 1, maximum: 1_000_000 }), { maxItems: 10_000, description: "each 1 to 1000000; sorted and de-duplicated; [] clears" })),
  metadata: t.Optional(Metadata),
  body: t.Optional(t.String()),
});
