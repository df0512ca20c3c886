/**
 * The crash test's operations, each with its weight (a function: it depends on what exists) and
 * what an acknowledged answer means for the model (crash-model.ts).
 */
import { contentFor, sha, TYPES, type DocModel } from "./crash-model.ts";
import { call, trickle } from "./crash-http.ts";
import type { Actor } from "./crash-workload.ts";

export function operations(a: Actor): [() => number, () => Promise<unknown>][] {
  const { env, o, me, r, pick, expect, corpora, docs } = a;
  return [
    [() => (corpora().length < 2 ? 0.3 : 0.01), async () => {
      const c = { id: "", actor: me, deleted: false };
      o.lostCorpora++;
      const a = await call(env, o, "POST", "/v1/corpus/", { name: `c${env.serial++}` });
      o.lostCorpora--;
      if (expect("corpus create", a, [200]) === 200) o.corpora.push({ ...c, id: a.body.id });
    }],
    [() => (corpora().length > 1 ? 0.015 : 0), async () => {
      const c = pick(corpora())!;
      c.inflight = "delete";
      const a = await call(env, o, "DELETE", `/v1/corpus/${c.id}`);
      c.inflight = undefined;
      if (expect("corpus delete", a, [200]) === 200) {
        c.deleted = true;
        for (const d of o.docs) if (d.corpusId === c.id) d.state = "deleted";
      }
    }],
    [() => 0.15, async () => {
      const c = pick(corpora());
      if (!c) return;
      const contentType = pick([...TYPES])!;
      const filename = `f${env.serial++}.${contentType === "application/pdf" ? "pdf" : "md"}`;
      o.lostInits++;
      const a = await call(env, o, "POST", "/v1/doc/init", { corpusId: c.id, filename, contentType, tags: ["crash"], userId: pick(["u1", "u2", undefined]) });
      o.lostInits--;
      if (expect("doc init", a, [200]) !== 200) return;
      const u = new URL(a.body.uploadUrl);
      o.docs.push({ id: a.body.document.id, corpusId: c.id, contentType, filename, state: "awaiting", uploadPath: u.pathname + u.search, candidates: new Map(), ever: new Set() });
    }],
    [() => 0.2, async () => {
      const d = pick(docs((d) => d.state === "awaiting" && d.uploadPath !== undefined));
      if (!d) return;
      // Now and then the bytes of another document of the corpus: its commit must answer 409.
      const twin = r() < 0.1 ? pick(docs((x) => x !== d && x.corpusId === d.corpusId && x.contentType === d.contentType && x.bytes !== undefined)) : undefined;
      const bytes = twin?.bytes;
      // The bytes of a PUT the kill cut go again to the same URL: it works unless that PUT was recorded (412).
      const body = d.sent ?? bytes ?? (await contentFor(d.contentType, env.serial++, r));
      const ok = d.sent ? [200, 412] : [200];
      d.sent = body;
      const h = sha(body);
      d.ever.add(h);
      d.candidates.set(h, body.byteLength); // the kill may leave either bytes under the key
      d.inflight = "put";
      // Now and then a slow chunked body (no Content-Length): the storage route streams it to a temporary file.
      const sent = r() < 0.2 ? trickle(body) : (body as BodyInit);
      const put = await fetch(env.base + d.uploadPath, { method: "PUT", headers: { "content-type": d.contentType }, body: sent, signal: AbortSignal.timeout(20_000) });
      const text = await put.text();
      d.inflight = undefined;
      if (!ok.includes(expect(`PUT ${d.id}`, { status: put.status, body: text }, ok))) return;
      Object.assign(d, { candidates: new Map([[h, body.byteLength]]), uploadPath: undefined, bytes: body, sent: undefined, loose: false });
    }],
    [() => 0.15, async () => {
      const d = pick(docs((d) => d.state === "awaiting" && (d.candidates.size > 0 || r() < 0.1)));
      if (!d) return;
      d.inflight = "commit";
      const a = await call(env, o, "POST", `/v1/doc/${d.id}/commit`);
      d.inflight = undefined;
      const s = expect(`commit ${d.id}`, a, d.candidates.size ? [200, 202, 409, ...(d.loose ? [400] : [])] : [400]);
      if (s === 200 || s === 202) d.state = "committed";
      else if (s === 409 && a.body?.existingDocumentId) d.state = "refused";
    }],
    [() => 0.06, async () => {
      const d = pick(docs((d) => d.state === "committed" || d.state === "refused"));
      if (!d) return;
      d.inflight = "replace";
      const a = await call(env, o, "PUT", `/v1/doc/${d.id}/init`);
      d.inflight = undefined;
      if (expect(`replace ${d.id}`, a, [200, 409]) !== 200) return;
      const u = new URL(a.body.uploadUrl);
      Object.assign(d, { state: "awaiting", uploadPath: u.pathname + u.search, ready: false });
    }],
    [() => 0.06, async () => {
      const d = pick(docs(() => true));
      if (!d) return;
      const filename = `p${env.serial++}-${d.filename}`;
      d.inflight = "patch";
      const a = await call(env, o, "PATCH", `/v1/doc/${d.id}`, { filename, metadata: { n: env.serial } });
      d.inflight = undefined;
      if (expect(`patch ${d.id}`, a, [200]) === 200) d.filename = filename;
    }],
    [() => 0.05, async () => {
      const d = pick(docs(() => true));
      if (!d) return;
      d.inflight = "delete";
      const a = await call(env, o, "DELETE", `/v1/doc/${d.id}`);
      d.inflight = undefined;
      if (expect(`delete ${d.id}`, a, [200]) === 200) d.state = "deleted";
    }],
    [() => 0.08, async () => {
      const c = pick(corpora());
      if (!c) return;
      let s = o.sessions.find((s) => s.corpusId === c.id);
      if (!s) {
        const a = await call(env, o, "POST", "/v1/session/", { corpusIds: [c.id] });
        if (expect("session create", a, [200]) !== 200) return;
        o.sessions.push((s = { id: a.body.id, corpusId: c.id, posts: 0, cut: 0 }));
      }
      s.cut++;
      const a = await call(env, o, "GET", `/v1/post/q?${new URLSearchParams({ sessionId: s.id, body: "What is the policy on the pump valve?" })}`);
      s.cut--;
      if (expect("ask", a, [200]) === 200) s.posts += 2;
    }],
  ];
}
