import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, initOk, put, sql } from "../documents/helpers.ts";

let k: Kbqa;
let a: Org;
let corpusId: string;
beforeAll(async () => {
  k = await startKbqa({ flags: ["--max-upload-bytes", "100000"] });
  a = await k.org();
  corpusId = await corpus(a);
}, 60_000); // starting a server and registering a key can pass 5 s on a loaded 2-core machine
afterAll(() => k.stop());

const docDir = (docId: string) => join(k.dataDir, "blobs", "orgs", a.orgId, "docs", docId);
const xmlCode = (text: string) => /<Code>([^<]+)<\/Code>/.exec(text)?.[1];

describe("single use", () => {
  test("a replay answers 412 PreconditionFailed and leaves the first upload in place", async () => {
    const i = await initOk(a, { corpusId });
    expect((await put(i.uploadUrl, "first", "text/plain")).status).toBe(200);
    const again = await put(i.uploadUrl, "second", "text/plain");
    expect([again.status, xmlCode(again.text)]).toEqual([412, "PreconditionFailed"]);
    expect(readFileSync(join(docDir(i.document.id), "original"), "utf8")).toBe("first");
  });

  test("concurrent PUTs of one URL: exactly one 200, the others 412, the object is the winner's bytes", async () => {
    const i = await initOk(a, { corpusId });
    // Each body sends its first chunk, then holds the rest until every request has started
    // (or 2 s passed), so the winner is still writing while the others arrive.
    let started = 0;
    let release!: () => void;
    const allStarted = new Promise<void>((r) => (release = r));
    setTimeout(release, 2000);
    const bodies = Array.from({ length: 8 }, (_, n) => `${n}:`.padEnd(60_000, String.fromCharCode(97 + n)));
    const stream = (text: string) => {
      const bytes = new TextEncoder().encode(text);
      let step = 0;
      return new ReadableStream<Uint8Array>({
        async pull(c) {
          if (step === 0) {
            if (++started === bodies.length) release();
            c.enqueue(bytes.subarray(0, 1000));
          } else if (step === 1) {
            await allStarted;
            c.enqueue(bytes.subarray(1000));
          } else c.close();
          step++;
        },
      });
    };
    // The losers are answered 412 (`Connection: close`) while their bodies are still held back;
    // Bun's fetch may still pool such a half-sent socket and hand it to a later test's request,
    // which the server then reads as the rest of the old body (400): no keep-alive here.
    const results = await Promise.all(
      bodies.map(async (b) => {
        const r = await fetch(i.uploadUrl, { method: "PUT", body: stream(b), headers: { "content-type": "text/plain" }, keepalive: false });
        return { status: r.status, text: await r.text() };
      }),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 412, 412, 412, 412, 412, 412, 412]);
    const winner = results.findIndex((r) => r.status === 200);
    expect(readFileSync(join(docDir(i.document.id), "original"), "utf8")).toBe(bodies[winner]!);
    expect(readdirSync(docDir(i.document.id))).toEqual(["original"]); // no temporary file left behind
  });

  test("a refused write (too large) releases the claim: the URL works once more, then never again", async () => {
    const i = await initOk(a, { corpusId });
    const big = await put(i.uploadUrl, "x".repeat(100_001), "text/plain");
    expect([big.status, xmlCode(big.text)]).toEqual([413, "EntityTooLarge"]);
    expect(existsSync(join(docDir(i.document.id), "original"))).toBe(false);
    expect((await put(i.uploadUrl, "small", "text/plain")).status).toBe(200);
    expect((await put(i.uploadUrl, "again", "text/plain")).status).toBe(412);
  });

  test("an unused URL stops working once the document is committed or deleted", async () => {
    // Commit after an upload: the URL was used, but even a second, unused URL (replacement) must not overwrite PROCESSING content.
    const i = await initOk(a, { corpusId });
    await put(i.uploadUrl, "committed content", "text/plain");
    expect((await a.api("POST", `/v1/doc/${i.document.id}/commit`)).status).toBe(202);
    // Play the worker: READY, then replace and commit without uploading (re-ingests the old bytes).
    sql(k, "UPDATE documents SET status = 'READY' WHERE id = ?", i.document.id);
    const r = await a.api("PUT", `/v1/doc/${i.document.id}/init`);
    expect(r.status).toBe(200);
    expect((await a.api("POST", `/v1/doc/${i.document.id}/commit`)).status).toBe(202);
    const late = await put(r.body.uploadUrl, "late overwrite", "text/plain");
    expect(late.status).toBe(412);
    expect(readFileSync(join(docDir(i.document.id), "original"), "utf8")).toBe("committed content");

    const d = await initOk(a, { corpusId });
    expect((await a.api("DELETE", `/v1/doc/${d.document.id}`)).status).toBe(200);
    expect((await put(d.uploadUrl, "after delete", "text/plain")).status).toBe(412);
    expect(existsSync(join(docDir(d.document.id), "original"))).toBe(false);
  });

  test("the claim is recorded in upload_grants before the write and completed after it", async () => {
    const i = await initOk(a, { corpusId });
    const nonce = new URL(i.uploadUrl).searchParams.get("X-Kbqa-Nonce")!;
    expect(sql(k, "SELECT claimed_at, completed_at, size FROM upload_grants WHERE nonce = ?", nonce)).toEqual([{ claimed_at: null, completed_at: null, size: null }]);
    await put(i.uploadUrl, "12345", "text/plain");
    const [g] = sql<{ claimed_at: number; completed_at: number; size: number }>(k, "SELECT claimed_at, completed_at, size FROM upload_grants WHERE nonce = ?", nonce);
    expect(g!.size).toBe(5);
    expect(g!.completed_at).toBeGreaterThanOrEqual(g!.claimed_at);
  });
});
