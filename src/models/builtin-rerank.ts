// builtin-lexical-rerank: BM25 of the query over the candidate passages, plus a small share of
// hashed-embedding cosine so passages with no exact term overlap are still ordered sensibly.
import { bm25 } from "./lexical.ts";
import { cosine, hashEmbed } from "./builtin-embed.ts";
import type { Reranker } from "./types.ts";

export const BUILTIN_RERANK_ID = "builtin-lexical-rerank";

export function createBuiltinReranker(): Reranker {
  return {
    id: BUILTIN_RERANK_ID,
    async rerank(query, passages) {
      const { scores } = bm25(query, passages);
      const q = hashEmbed(query);
      return passages.map((p, i) => scores[i]! + 0.5 * cosine(q, hashEmbed(p)));
    },
  };
}
