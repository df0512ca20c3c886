/**
 * Token usage of one exchange, attributed to corpora. Corpus usage reports count post tokens, and
 * a session may span several corpora: the tokens are split evenly over the corpora whose chunks
 * were handed to the model (the integer remainder goes to the first of them, in session order),
 * so the organization total stays exact and a corpus that contributed nothing is charged
 * nothing. When no chunk was retrieved, the session's first corpus carries the whole amount.
 */
export function splitTokens(total: number, sessionCorpora: string[], usedCorpora: string[]): { corpusId: string | null; amount: number }[] {
  if (total <= 0) return [];
  const used = new Set(usedCorpora);
  const targets = sessionCorpora.filter((c) => used.has(c));
  if (targets.length === 0) return [{ corpusId: sessionCorpora[0] ?? null, amount: total }];
  const share = Math.floor(total / targets.length);
  const rest = total - share * targets.length;
  return targets.map((corpusId, i) => ({ corpusId, amount: share + (i === 0 ? rest : 0) })).filter((s) => s.amount > 0);
}
