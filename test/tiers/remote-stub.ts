// The OpenAI-wire stub as the remote tier's model server: it answers by quoting the passage that
// holds the fact with that passage's marker, so citations go the way a real model's [n] would.
import { startOpenAIStub } from "../models/helpers/openai-stub.ts";

export const REMOTE_KEY = "sk-tiers-test";
export const REMOTE_CHAT = "stub-chat";
export const REMOTE_EMBED = "stub-embed";

/** The [n] of the passage mentioning gulls in the prompt, or the canned refusal. */
export function stubReply(body: any): string {
  const user: string = body.messages?.at(-1)?.content ?? "";
  if (!/^Passages:/.test(user)) return "## Summary\n\n- A stub summary.";
  const ref = user.split(/\n\n(?=\[\d+\])/).find((p) => /seventeen gulls/.test(p))?.match(/^\[(\d+)\]/)?.[1];
  return ref ? `Stub model says: seventeen gulls [${ref}].` : "The passages do not answer the question.";
}

export function startRemoteStub() {
  const stub = startOpenAIStub({ reply: stubReply, apiKey: REMOTE_KEY });
  return {
    stub,
    flags: ["--remote-url", stub.url, "--remote-chat-model", REMOTE_CHAT, "--remote-embedding-model", REMOTE_EMBED],
    env: { KBQA_REMOTE_KEY: REMOTE_KEY },
  };
}
