import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, initOk, sql } from "./helpers.ts";

// Spec, Authentication rule 4: revocation is immediate, and in-flight requests fail right after.
// The summary endpoint waits (up to --summary-wait-ms) for ingestion: a credential revoked or
// deactivated during that wait must not receive the summary written afterwards.
const WAIT = 8000;
let k: Kbqa;
let org: Org;
let corpusId: string;
beforeAll(async () => {
  k = await startKbqa({ flags: ["--summary-wait-ms", String(WAIT)] });
  org = await k.org("revoked");
  corpusId = await corpus(org);
});
afterAll(() => k.stop());

async function waitingDocument(): Promise<string> {
  const i = await initOk(org, { corpusId });
  // PROCESSING without a job: nothing but this test will ever write its summary.
  sql(k, "UPDATE documents SET status = 'PROCESSING' WHERE id = ?", i.document.id);
  return i.document.id;
}

/** Starts a summary wait, lets `revoke` run once the server has it, then writes the summary. */
async function revokedDuringWait(id: string, headers: Record<string, string>, revoke: () => Promise<unknown>) {
  const t0 = Date.now();
  const pending = k.request("GET", `/v1/doc/${id}/summary`, undefined, headers);
  await k.request("GET", "/pub/ping"); // one round trip: the wait has been received
  await revoke();
  sql(k, "UPDATE documents SET summary = '# written after the revocation' WHERE id = ?", id);
  const r = await pending;
  return { ...r, ms: Date.now() - t0 };
}

test("an access token revoked while its summary request waits gets 403, not the summary", async () => {
  const jwt = await org.jwt();
  const made = await k.request("POST", "/v1/auth/access-token", { scope: ["doc:read"] }, { authorization: `Bearer ${jwt}` });
  const token = made.body.token as string;
  const id = await waitingDocument();
  const r = await revokedDuringWait(id, { "x-access-token": token }, () =>
    k.request("DELETE", `/v1/auth/access-token/${token}`, undefined, { authorization: `Bearer ${jwt}` }),
  );
  expect([r.status, JSON.stringify(r.body).includes("written after")]).toEqual([403, false]);
  expect(r.ms).toBeLessThan(WAIT); // refused at the next poll, not at the end of the wait
});

test("a JWT whose key is deactivated while its summary request waits gets 403", async () => {
  const other = await k.org("revoked-key");
  const c = await corpus(other);
  const i = await initOk(other, { corpusId: c });
  sql(k, "UPDATE documents SET status = 'PROCESSING' WHERE id = ?", i.document.id);
  const jwt = await other.jwt();
  const r = await revokedDuringWait(i.document.id, { authorization: `Bearer ${jwt}` }, async () => {
    const cli = await k.cli(["key", "deactivate", other.kid]);
    expect(cli.code).toBe(0);
  });
  expect([r.status, JSON.stringify(r.body).includes("written after")]).toEqual([403, false]);
});

test("a credential still valid receives the summary written during its wait", async () => {
  const id = await waitingDocument();
  const r = await revokedDuringWait(id, { authorization: `Bearer ${await org.jwt()}` }, async () => {});
  expect([r.status, r.body]).toEqual([200, "# written after the revocation"]);
});
