// The spec's timestamps are UTC. One written without a zone designator ("2024-01-01T00:00:00")
// was read by Date.parse in the server's local time zone, so a server started with TZ set (a
// container given the operator's zone) stored docCreate an offset away and moved the
// createdAfter/createdBefore window, while a date alone ("2024-01-01") was read as UTC.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

let k: Kbqa;
let org: Org;
beforeAll(async () => {
  k = await startKbqa({ env: { TZ: "America/New_York" } });
  org = await k.org();
});
afterAll(() => k?.stop());

test("a timestamp without a zone is UTC whatever the server's TZ: docCreate, docUpdate and the search window", async () => {
  const corpusId = (await org.api("POST", "/v1/corpus/", { name: "c" })).body.id;
  const init = await org.api("POST", "/v1/doc/init", {
    corpusId, filename: "a.md", contentType: "text/markdown", docCreate: "2024-01-01T00:00:00", docUpdate: "2024-01-01 12:30",
  });
  expect(init.status).toBe(200);
  const patched = await org.api("PATCH", `/v1/doc/${init.body.document.id}`, { docCreate: "2023-06-30T23:59:59.5" });

  // The document was created a moment ago, after a UTC time two hours back; read in New York time
  // (UTC-5 or -4) that same text lies hours ahead, and the window flipped.
  const earlier = new Date(Date.now() - 2 * 3_600_000).toISOString().slice(0, 19);
  const after = await org.api("GET", `/v1/doc/q?corpusId=${corpusId}&createdAfter=${earlier}`);
  const before = await org.api("GET", `/v1/doc/q?corpusId=${corpusId}&createdBefore=${earlier}`);
  expect({
    init: [init.body.document.docCreate, init.body.document.docUpdate],
    patched: patched.body.docCreate,
    window: [after.status, after.body.total, before.status, before.body.total],
  }).toEqual({
    init: ["2024-01-01T00:00:00.000Z", "2024-01-01T12:30:00.000Z"],
    patched: "2023-06-30T23:59:59.500Z",
    window: [200, 1, 200, 0],
  });
});
