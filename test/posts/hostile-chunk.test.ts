import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { ask, corpus, ingest, session } from "./helpers.ts";
import { chunkRows } from "./sql.ts";

// The audit's document: one chunk holding a run of 50,000 full stops. Each question over it held
// the server's event loop for 18 s, so every organization's requests, /pub/ping included, waited.
const HOSTILE = "vacation days policy " + ".".repeat(50_000) + " x";

let k: Kbqa;
let org: Org;
let sid: string;
let docId: string;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
  const cid = await corpus(org);
  sid = await session(org, [cid]);
  docId = await ingest(k, org, cid, "hostile.md", HOSTILE, "text/markdown", { chunk: { max_characters: 51_000 } });
});
afterAll(() => k?.stop());

describe("a chunk of 50,000 full stops", () => {
  test("is stored as one chunk, as uploaded", () => {
    const chunks = chunkRows(k, docId).filter((c) => c.kind === "chunk");
    expect(chunks.length).toBe(1);
  });

  test("is answered quickly while /pub/ping keeps answering", async () => {
    const pings: number[] = [];
    let asking = true;
    // Back-to-back pings for as long as the question runs: the slowest is how long the loop was held.
    const pinger = (async () => {
      while (asking) {
        const t0 = performance.now();
        const r = await k.request("GET", "/pub/ping");
        pings.push(performance.now() - t0);
        expect(r.status).toBe(200);
      }
    })();
    const t0 = performance.now();
    const r = await ask(org, sid, "vacation days policy");
    const askMs = performance.now() - t0;
    asking = false;
    await pinger;
    expect(r.status).toBe(200);
    expect(r.body.answer.body).toStartWith("vacation days policy");
    expect(r.body.answer.body.length).toBeLessThan(1_000);
    expect(askMs).toBeLessThan(3_000);
    expect(pings.length).toBeGreaterThan(0);
    expect(Math.max(...pings)).toBeLessThan(1_000);
  });

  test("its document's summary is short", async () => {
    const r = await org.api("GET", `/v1/doc/${docId}/summary`);
    expect(r.status).toBe(200);
    const summary = String(r.body);
    expect(summary).toContain("vacation days policy");
    expect(summary.length).toBeLessThanOrEqual(2_000);
    const summaryChunk = chunkRows(k, docId).find((c) => c.kind === "summary");
    expect(summaryChunk?.body.length).toBeLessThanOrEqual(2_000);
  });
});
