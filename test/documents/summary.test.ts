import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, initOk, sql, upload } from "./helpers.ts";

const WAIT = 400;
let k: Kbqa;
let a: Org;
let corpusId: string;
beforeAll(async () => {
  k = await startKbqa({ flags: ["--summary-wait-ms", String(WAIT)] });
  a = await k.org();
  corpusId = await corpus(a);
});
afterAll(() => k.stop());

describe("GET /v1/doc/{id}/summary", () => {
  test("returns text/markdown once documents.summary is set", async () => {
    const i = await initOk(a, { corpusId });
    sql(k, "UPDATE documents SET status = 'READY', summary = '# Summary\n\nShort.' WHERE id = ?", i.document.id);
    const r = await fetch(`${k.url}/v1/doc/${i.document.id}/summary`, { headers: { authorization: `Bearer ${await a.jwt()}` } });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toStartWith("text/markdown");
    expect(await r.text()).toBe("# Summary\n\nShort.");
  });

  test("waits while PROCESSING and answers as soon as the summary appears", async () => {
    const i = await initOk(a, { corpusId });
    // PROCESSING without a job: the scheduler has nothing to run, only this test writes the summary.
    sql(k, "UPDATE documents SET status = 'PROCESSING' WHERE id = ?", i.document.id);
    const pending = a.api("GET", `/v1/doc/${i.document.id}/summary`);
    setTimeout(() => sql(k, "UPDATE documents SET summary = 'late but here' WHERE id = ?", i.document.id), 150);
    const r = await pending;
    expect([r.status, r.body]).toEqual([200, "late but here"]);
  });

  test("no summary within --summary-wait-ms → 504 with a clear message", async () => {
    const i = await initOk(a, { corpusId });
    sql(k, "UPDATE documents SET status = 'PROCESSING' WHERE id = ?", i.document.id);
    const t0 = Date.now();
    const r = await a.api("GET", `/v1/doc/${i.document.id}/summary`);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(WAIT - 20);
    expect(r.status).toBe(504);
    expect(r.body.message).toContain(`${WAIT} ms`);
  });

  test("FAILED → 409 with the reason; AWAITING_UPLOAD → 409 at once", async () => {
    const i = await initOk(a, { corpusId });
    const now = await a.api("GET", `/v1/doc/${i.document.id}/summary`);
    expect(now.status).toBe(409);
    sql(k, "UPDATE documents SET status = 'FAILED', status_msg = 'conversion failed: broken xref' WHERE id = ?", i.document.id);
    const f = await a.api("GET", `/v1/doc/${i.document.id}/summary`);
    expect(f.status).toBe(409);
    expect(f.body.message).toContain("broken xref");
  });

  test("end to end with the real ingestion: commit, then the summary request completes (READY) or reports the failure", async () => {
    await using s = await startKbqa({ flags: ["--summary-wait-ms", "60000"] });
    const o = await s.org();
    const c = await corpus(o);
    const { init, commit } = await upload(o, c, "# Title\n\nThe quick brown fox jumps over the lazy dog. ".repeat(20));
    expect(commit.status).toBe(202);
    const r = await o.api("GET", `/v1/doc/${init.document.id}/summary`);
    const status = (await o.api("GET", `/v1/doc/${init.document.id}/status`)).body.status;
    if (status === "READY") {
      expect(r.status).toBe(200);
      expect(typeof r.body).toBe("string");
      expect(r.body.length).toBeGreaterThan(0);
    } else expect([status, r.status]).toEqual(["FAILED", 409]);
  });
});
