import type { ChatMessage, Passage, Reranker } from "../models/types.ts";
import type { RetrievedChunk } from "./retrieve.ts";

/** Numbered passages for the answerer: ref n is the n-th chunk, so an [n] marker names a chunk. */
export function toPassages(chunks: RetrievedChunk[]): Passage[] {
  return chunks.map((c, i) => ({ ref: i + 1, text: c.text, pages: c.pages, title: c.title }));
}

/**
 * What retrieval searches for. A follow-up ("and how long does it last?") rarely names its
 * subject, so when history is replayed the previous question is searched along with the new one.
 * Only the question is added, not the answer: answers quote passages and would pull the same
 * chunks back whatever was asked.
 */
export function retrievalText(question: string, history: ChatMessage[]): string {
  const previous = [...history].reverse().find((m) => m.role === "user");
  return previous ? `${question}\n${previous.content}` : question;
}

/**
 * Re-orders the chunks by the re-ranker's score and keeps `keep` of them. The sort is stable, so
 * equal scores keep the fused order.
 */
export async function rerankChunks(reranker: Reranker, question: string, chunks: RetrievedChunk[], keep: number): Promise<RetrievedChunk[]> {
  if (chunks.length === 0) return chunks;
  const scores = await reranker.rerank(question, chunks.map((c) => c.text));
  return chunks
    .map((c, i) => ({ c, s: scores[i] ?? Number.NEGATIVE_INFINITY, i }))
    .sort((a, b) => b.s - a.s || a.i - b.i)
    .slice(0, Math.max(0, keep))
    .map(({ c }) => c);
}

/**
 * Which passages an answer stands on. Markers outside 1..n are ignored. An answer given without
 * any marker still came from the passages alone (that is all the model was shown), so every
 * passage is attached rather than presenting it as unsourced. An answer that says the passages do
 * not answer the question stands on none.
 */
export function citedRefs(cited: number[], answered: boolean, passageCount: number): number[] {
  if (!answered) return [];
  const valid = [...new Set(cited.filter((r) => Number.isInteger(r) && r >= 1 && r <= passageCount))].sort((a, b) => a - b);
  if (valid.length) return valid;
  return Array.from({ length: passageCount }, (_, i) => i + 1);
}
