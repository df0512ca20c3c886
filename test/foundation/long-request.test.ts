import { expect, test } from "bun:test";
import { startKbqa } from "../helpers/server.ts";
import { corpus, initOk, sql } from "../documents/helpers.ts";

// Bun.serve drops a connection after idleTimeout seconds without output (Elysia sets 30), even
// while the handler works. A request that legitimately takes longer (the summary wait, a slow local model)
// must still get its answer.
test("a request that takes longer than 30 s still gets its answer", async () => {
  await using k = await startKbqa({ flags: ["--summary-wait-ms", "40000"] });
  const a = await k.org();
  const i = await initOk(a, { corpusId: await corpus(a) });
  // PROCESSING without a job: nothing will write a summary, so the request waits the whole time.
  sql(k, "UPDATE documents SET status = 'PROCESSING' WHERE id = ?", i.document.id);
  const t0 = Date.now();
  const r = await a.api("GET", `/v1/doc/${i.document.id}/summary`);
  expect(Date.now() - t0).toBeGreaterThanOrEqual(40_000);
  expect([r.status, r.body.message]).toEqual([504, expect.stringContaining("40000 ms")]);
}, 60_000);
