/**
 * The crash test's reads during the workload: what the model knows for sure must hold while the
 * server runs too (a deleted document or corpus stays gone, another organization sees nothing).
 */
import { call } from "./crash-http.ts";
import type { Actor } from "./crash-workload.ts";

export function reads(a: Actor): [() => number, () => Promise<unknown>][] {
  const { env, o, pick, expect, docs } = a;
  const gone = () => o.docs.filter((d) => d.state === "deleted" && !d.uncertain);
  const empty = (got: { status: number; body: any }) => ({ status: got.status === 200 && got.body.items.length ? 299 : got.status, body: got.body });
  return [
    [() => 0.04, async () => expect("usage", await call(env, o, "GET", "/v1/usage/all?timeframe=Day"), [200])],
    [() => 0.05, async () => {
      const d = pick(docs(() => true));
      if (d) expect(`get ${d.id}`, await call(env, o, "GET", `/v1/doc/${d.id}/status`), [200]);
    }],
    [() => (gone().length ? 0.05 : 0), async () => {
      // 299: a page that is not empty.
      const d = pick(gone())!;
      expect(`read deleted ${d.id}`, await call(env, o, "GET", `/v1/doc/${d.id}`), [404]);
      expect(`read deleted chunks of ${d.id}`, empty(await call(env, o, "GET", `/v1/chunk/q?documentId=${d.id}`)), [200]);
      // No listing or search of the organization's chunks shows a deleted document's.
      const dead = new Set(gone().map((d) => d.id));
      for (const q of ["/v1/chunk/?pageSize=100", "/v1/chunk/q?key=kind&value=chunk&pageSize=100", `/v1/chunk/q?json=${encodeURIComponent('{"kind":"summary"}')}&pageSize=100`]) {
        const got = await call(env, o, "GET", q);
        const stale = got.body?.items?.filter((c: any) => dead.has(c.documentId)) ?? [];
        expect(`read deleted search ${q}`, { status: stale.length ? 299 : got.status, body: stale }, [200]);
      }
      const c = pick(o.corpora.filter((c) => c.deleted && !c.uncertain));
      if (!c) return;
      expect(`read deleted corpus ${c.id}`, await call(env, o, "GET", `/v1/corpus/${c.id}`), [404]);
      expect(`read deleted corpus documents ${c.id}`, empty(await call(env, o, "GET", `/v1/doc/?corpusId=${c.id}`)), [200]);
      expect(`read deleted corpus chunks ${c.id}`, empty(await call(env, o, "GET", `/v1/chunk/q?corpusId=${c.id}`)), [200]);
    }],
    [() => 0.03, async () => {
      const other = env.orgs.find((x) => x !== o)!;
      const d = pick(other.docs);
      if (!d) return;
      expect(`read other ${d.id}`, await call(env, o, "GET", `/v1/doc/${d.id}`), [404]);
      expect(`read other chunks ${d.id}`, await call(env, o, "GET", `/v1/chunk/q?documentId=${d.id}`), [403]);
      expect(`read other download-url ${d.id}`, await call(env, o, "GET", `/v1/doc/${d.id}/download-url`), [404]);
      expect(`read other usage ${d.corpusId}`, await call(env, o, "GET", `/v1/usage/corpus/${d.corpusId}`), [404]);
    }],
  ];
}
