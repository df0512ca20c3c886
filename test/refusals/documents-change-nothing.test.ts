// Refused document writes (init, commit, replace, patch, delete) change nothing
// (test/helpers/refusal-sweep.ts), but for what the README documents of a refused commit.
import type { World } from "../helpers/fuzz-world.ts";
import { refusalsChangeNothing } from "../helpers/refusal-domain.ts";
import type { Refusal } from "../helpers/refusal-sweep.ts";

/** Commits the server refuses on the uploaded bytes: the kept document's content again (409), text declared as PDF (415). */
async function commitRefusals(w: World): Promise<Refusal[]> {
  const bytes = await (await fetch(w.storage.download)).arrayBuffer();
  const uploaded = async (filename: string, contentType: string, body: BodyInit) => {
    const init = await w.a.api("POST", "/v1/doc/init", { corpusId: w.ids.corpus.keep, filename, contentType });
    const put = await fetch(init.body.uploadUrl, { method: "PUT", headers: { "content-type": contentType }, body });
    if (init.status !== 200 || put.status !== 200) throw new Error(`commit refusals: upload of ${filename} → ${init.status}, ${put.status}`);
    return init.body.document.id as string;
  };
  const headers = { authorization: `Bearer ${w.jwtA}` };
  // README (Commit): "A refused 413/415/409 moves the document to FAILED with the reason in
  // statusMsg, so PUT /v1/doc/{id}/init can give it a new URL" (its upload URL is spent). That
  // move, and nothing else, is what such a refusal may change.
  type Doc = { id: string; status: string; statusMsg?: string; updatedAt: string };
  const find = (s: Parameters<NonNullable<Refusal["documented"]>>[0], id: string) =>
    (Object.values(s.a.documents).filter(Array.isArray).flat() as Doc[]).find((x) => x.id === id);
  const failed: Refusal["documented"] = (before, answer, after) => {
    const id = answer.json.path.split("/")[3];
    const [was, now] = [find(before, id), find(after, id)];
    // updatedAt moves to the refusal's time (read from after, checked not to go back).
    if (was && now && now.updatedAt >= was.updatedAt) Object.assign(was, { status: "FAILED", statusMsg: answer.json.message, updatedAt: now.updatedAt });
    return before;
  };
  const commit = (label: string, id: string): Refusal => ({ op: "POST /v1/doc/{id}/commit", label, method: "POST", url: `/v1/doc/${id}/commit`, headers, documented: failed });
  return [commit("the kept document's bytes again (409)", await uploaded("again.md", "text/markdown", bytes)), commit("text declared as PDF (415)", await uploaded("text.pdf", "application/pdf", "not a pdf"))];
}

refusalsChangeNothing("documents", (k) => / \/v1\/doc\//.test(k), 5, commitRefusals);
