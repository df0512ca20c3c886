import { t } from "elysia";
import { JsonObject, LangCode, PageQuery, Timestamp } from "../http/paging.ts";

export const Post = t.Object({
  id: t.String({ format: "uuid" }),
  sessionId: t.String({ format: "uuid" }),
  owner: t.Union([t.Literal("USER"), t.Literal("SYSTEM")]),
  body: t.String(),
  lang: t.String({ description: "Language of the answer (ISO-639-1)" }),
  agentId: t.String({ format: "uuid", description: "Agent the query ran on (may name an agent deleted since)" }),
  attachment: t.Integer({ description: "Live chunks behind an answer (0 on questions); counted on read, so a deleted chunk stops counting" }),
  createdAt: Timestamp(),
});

export const Exchange = t.Object({ query: Post, answer: Post });

/**
 * The question: blanks alone are refused here rather than after trimming, so the refusal says
 * where the client put it (query parameter or body field) like every other validation error.
 */
export const Question = t.String({
  minLength: 1,
  maxLength: 10_000,
  pattern: "\\S",
  error: "must be 1 to 10000 characters, not only blanks",
  description: "The question",
});

const QueryFields = {
  sessionId: t.String({ format: "uuid" }),
  body: Question,
  lang: t.Optional(LangCode("Answer language (ISO 639); detected from the question when absent or empty")),
  agentId: t.Optional(t.String({ format: "uuid", description: "Agent to run on; the platform default when absent" })),
};
export const QueryParams = t.Object(QueryFields);

/**
 * `agentId` of a JSON body: a UUID, or empty for "not named" (the platform default), as
 * `GET /v1/post/q?agentId=` reads it: the deprecated POST and the widget's paths have the same
 * contract as that query (an empty `lang` already counted as absent there).
 */
export const BodyAgentId = t.Optional(
  t.String({
    title: "agentId",
    pattern: "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})?$",
    description: "Agent to run on; the platform default when absent or empty",
  }),
);
export const QueryBody = t.Object({ ...QueryFields, agentId: BodyAgentId });

export const Order = t.Union([t.Literal("ASC"), t.Literal("DESC")], { title: "order", default: "DESC" });

export const PostListQuery = t.Object({
  sessionId: t.String({ format: "uuid" }),
  order: t.Optional(Order),
  ...PageQuery,
});

export const PostPage = t.Object({
  sessionId: t.String({ format: "uuid" }),
  order: t.UnionEnum(["ASC", "DESC"]),
  pageIndex: t.Integer(),
  pageSize: t.Integer(),
  total: t.Integer(),
  items: t.Array(Post),
});

export const Attachment = t.Object({
  docId: t.String({ format: "uuid" }),
  summary: t.Nullable(t.String({ description: "The document summary (markdown); null until generated" })),
  pages: t.Array(t.Integer(), { description: "Pages the cited chunks cover, ascending" }),
  // Read back, not written: a document stored before the depth limit may be deeper.
  metadata: JsonObject("document metadata", null),
});
export const Attachments = t.Array(Attachment);
