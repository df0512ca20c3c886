import { t } from "elysia";
import { DisplayName, JsonObject, LangCode, Metadata, PageQuery, StoredMetadata, Timestamp, USER_ID_MAX } from "../http/paging.ts";
import { STATUSES } from "./rows.ts";
import { SORTS } from "./search.ts";

const Filename = DisplayName(1024, "Display name; stored as given, never used in a storage path");
// Items and count are bounded loosely here (and by the body limit): the rule applies after trimming (fields.ts).
const Tags = t.Array(t.String(), {
  maxItems: 1000, // a bound on the raw list; the limit of 32 applies after blanks and duplicates are dropped (fields.ts)
  description: "At most 32 tags of at most 64 characters, after trimming, dropping blanks and collapsing duplicates",
  "x-rule": "an array of at most 32 tags, each a string of at most 64 characters",
});
const Time = Timestamp("ISO-8601 timestamp; without a zone it is UTC");
const CHUNK_DOC = "Chunking override handed to the chunker as stored; {} means the platform default";
const Chunk = JsonObject(CHUNK_DOC);
const StoredChunk = JsonObject(CHUNK_DOC, null);
const Status = t.UnionEnum([...STATUSES]);
/**
 * Enumerated query parameters are patterned strings: Elysia fills an absent UnionEnum query
 * parameter with its first member (so `order` would always be ASC) and reports its failures
 * without the parameter's name. `enum` is kept for the OpenAPI document.
 */
const QueryEnum = (name: string, values: readonly string[]) =>
  t.String({ pattern: `^(${values.join("|")})$`, enum: [...values], title: name, description: `One of ${values.join(", ")}` });

export const DocInit = t.Object({
  corpusId: t.String({ format: "uuid" }),
  filename: Filename,
  contentType: t.String({ minLength: 1, maxLength: 255, description: "One of GET /v1/doc/accept; the PUT must carry exactly this Content-Type" }),
  metadata: t.Optional(Metadata),
  tags: t.Optional(t.Nullable(Tags)),
  chunk: t.Optional(t.Nullable(Chunk)),
  provider: t.Optional(t.Nullable(t.String({ maxLength: 256 }))),
  // The rule of every user id taken (a JWT sub, an access token userId).
  userId: t.Optional(
    t.Nullable(DisplayName(USER_ID_MAX, "Owner; the caller's user when absent or null"), {
      "x-rule": `1 to ${USER_ID_MAX} characters, not only blanks, without control characters, or null`,
    }),
  ),
  lang: t.Optional(t.Nullable(LangCode("ISO 639 language of the document; detected at ingestion when absent or empty"))),
  docCreate: t.Optional(t.Nullable(Time)),
  docUpdate: t.Optional(t.Nullable(Time)),
});

export const DocPatch = t.Object({
  filename: t.Optional(Filename),
  docCreate: t.Optional(t.Nullable(Time)),
  docUpdate: t.Optional(t.Nullable(Time)),
  metadata: t.Optional(Metadata),
  tags: t.Optional(t.Nullable(Tags)),
  chunk: t.Optional(t.Nullable(Chunk)),
});

export const Document = t.Object({
  id: t.String({ format: "uuid" }),
  corpusId: t.String({ format: "uuid" }),
  filename: t.String(),
  contentType: t.String(),
  status: Status,
  statusMsg: t.Optional(t.String()),
  size: t.Optional(t.Integer({ description: "Bytes; omitted while unset" })),
  tokens: t.Optional(t.Integer({ description: "Omitted while unset" })),
  nbWords: t.Optional(t.Integer({ description: "Omitted while unset" })),
  nbPages: t.Integer({ description: "0 = not counted yet or a format without pages" }),
  userId: t.Optional(t.String()),
  provider: t.Optional(t.String()),
  lang: t.Optional(t.String()),
  // Values read back are not bounded: a row stored before the depth limit must still be readable.
  metadata: StoredMetadata,
  tags: t.Nullable(t.Array(t.String())),
  chunk: t.Optional(StoredChunk),
  docCreate: t.Optional(Timestamp()),
  docUpdate: t.Optional(Timestamp()),
  createdAt: Timestamp(),
  updatedAt: Timestamp(),
});

export const UploadGrant = t.Object({
  document: Document,
  uploadUrl: t.String({ description: "Single-use presigned PUT URL bound to contentType" }),
  expiresAt: Timestamp(),
});

export const DocStatusView = t.Object({
  id: t.String({ format: "uuid" }),
  status: Status,
  statusMsg: t.Optional(t.String()),
  stage: t.Optional(t.String({ description: "Ingestion stage in progress (additive field)" })),
  done: t.Optional(t.Integer({ description: "Units of the stage done (additive field)" })),
  total: t.Optional(t.Integer({ description: "Units of the stage in all (additive field)" })),
  ahead: t.Optional(t.Integer({ description: "With stage `queued`: documents of the organization waiting before this one (additive field)" })),
  waiting: t.Optional(t.String({ description: "Why a PROCESSING document makes no progress now, e.g. a full data disk (additive field)" })),
  updatedAt: Timestamp(),
});

export const DocPageView = t.Object({
  corpusId: t.String({ format: "uuid" }),
  pageIndex: t.Integer(),
  pageSize: t.Integer(),
  total: t.Integer(),
  items: t.Array(Document),
});

const Repeatable = (d: string) => t.Optional(t.Array(t.String(), { description: `${d}; repeatable` }));

export const DocListQuery = t.Object({
  corpusId: t.String({ format: "uuid" }),
  // Checked by the route (an array query failure would not name the parameter).
  status: t.Optional(t.Array(t.String({ enum: [...STATUSES] }), { description: "Repeatable or comma-separated; any listed state matches" })),
  tags: Repeatable("Matches documents with at least one of these tags (repeat the parameter; a tag may contain commas)"),
  ...PageQuery,
});

export const DocSearchQuery = t.Object({
  ...DocListQuery.properties,
  q: t.Optional(t.String({ maxLength: 1024, description: "Filename prefix, case-insensitive; * is the only wildcard" })),
  tagsMatch: t.Optional(QueryEnum("tagsMatch", ["ANY", "ALL"])),
  contentType: t.Optional(t.String()),
  lang: t.Optional(t.String()),
  provider: t.Optional(t.String()),
  createdAfter: t.Optional(Timestamp("Inclusive bound")),
  createdBefore: t.Optional(Timestamp("Exclusive bound")),
  sort: t.Optional(QueryEnum("sort", Object.keys(SORTS))),
  order: t.Optional(QueryEnum("order", ["ASC", "DESC"])),
});

export const PreviewQuery = t.Object({
  pages: t.Array(t.String(), { description: "1 to 10 zero-based page indices, repeated or comma-separated" }),
});

export const DownloadUrlView = t.Object({
  documentId: t.String({ format: "uuid" }),
  filename: t.String(),
  contentType: t.String(),
  url: t.String(),
  expiresAt: Timestamp(),
});

export const PreviewUrlsView = t.Object({
  documentId: t.String({ format: "uuid" }),
  expiresAt: Timestamp(),
  items: t.Array(t.Object({ page: t.Integer(), size: t.UnionEnum(["SMALL", "MEDIUM"]), url: t.String() })),
});

export const AcceptView = t.Object({
  items: t.Array(t.Object({ contentType: t.String(), name: t.String(), extensions: t.Array(t.String()) })),
});
