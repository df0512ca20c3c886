import { t } from "elysia";
import { LANG_TAG, LangCode, Metadata, PageQuery } from "../http/paging.ts";
import { BodyAgentId, Order, Question } from "../posts/schema.ts";

/**
 * Payloads of the deprecated widget family. They are the session and post operations under
 * other paths, with the same field names, so an embed can move to /v1/session and /v1/post by
 * changing URLs only.
 */
export const WidgetInit = t.Object(
  {
    corpusIds: t.Array(t.String({ format: "uuid" }), { minItems: 1, maxItems: 100, description: "Corpora the session answers from (required)" }),
    metadata: t.Optional(Metadata),
  },
  { additionalProperties: true },
);

const AskFields = {
  sessionId: t.String({ format: "uuid" }),
  body: Question,
  lang: t.Optional(LangCode("Answer language (ISO 639); detected from the question when absent or empty")),
  agentId: BodyAgentId,
};
export const WidgetAsk = t.Object(AskFields, { additionalProperties: true });

export const WidgetList = t.Object({ sessionId: t.String({ format: "uuid" }), order: t.Optional(Order), ...PageQuery });

export const PostIdParams = t.Object({ postId: t.String({ format: "uuid" }) });

/**
 * First-generation embeds: the language is in the path; without a session one is opened over
 * `corpusIds`. Judged as the `lang` of the other question paths (LangCode), only never empty.
 */
export const LegacyLang = t.Object({
  lang: t.String({ maxLength: 35, pattern: `^${LANG_TAG}$`, "x-rule": "an ISO 639 language code such as en or pt-BR" }),
});
export const LegacyAsk = t.Object(
  {
    sessionId: t.Optional(t.String({ format: "uuid" })),
    corpusIds: t.Optional(t.Array(t.String({ format: "uuid" }), { minItems: 1, maxItems: 100 })),
    body: Question,
    agentId: BodyAgentId,
  },
  { additionalProperties: true },
);
