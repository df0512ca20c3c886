/**
 * Platform defaults: what an agent follows for every field it leaves unset. Changing a value here
 * changes every agent that does not override it (spec: "A field left unset follows the platform
 * default as the platform changes it").
 *
 * - topK 8: enough passages to cover an answer spread over a few pages while keeping the prompt
 *   short enough for small local models (8 × ~1-2 KB chunks).
 * - rerankTopK 4: re-ranking exists to focus, so it keeps half of topK.
 * - historySize 6: the last three exchanges (a question and its answer count as two).
 * - temperature 0.2: source-bound answers want little randomness but not fully greedy decoding.
 */
export const DEFAULT_CONTEXT =
  "You are the question-answering assistant of a knowledge base. You answer questions using only the document " +
  "passages supplied with each question. Each passage is numbered, and carries its document title and the pages it comes from.";

export const DEFAULT_BEHAVIOUR =
  "Give a balanced, neutral answer of a length that fits the question. Base every statement on the passages and cite " +
  "the passages you rely on with their number in square brackets, like [1] or [2][3], right after the statement they support. " +
  "When the passages disagree, say so and cite both. When the passages do not contain the answer, say plainly that the " +
  "documents do not cover it instead of guessing, and do not fill gaps with outside knowledge. " +
  "Answer in the language the request asks for, or else in the language of the question.";

export const DEFAULT_SPIRIT =
  "Be accurate before being helpful, and helpful before being brief. Prefer \"the documents do not say\" to a plausible invention.";

export const PLATFORM_DEFAULTS = {
  topK: 8,
  rerank: false,
  rerankTopK: 4,
  historySize: 6,
  useHistory: true,
  thinkingMode: "LOW",
  temperature: 0.2,
  context: DEFAULT_CONTEXT,
  behaviour: DEFAULT_BEHAVIOUR,
  spirit: DEFAULT_SPIRIT,
} as const;

export type ThinkingMode = "LOW" | "HIGH";
