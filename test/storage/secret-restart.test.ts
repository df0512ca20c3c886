// The signing secret is created once and kept in the data directory: an upload URL handed out
// before a restart must still work after it (a client may well hold one across a deploy), and a
// restart must not rewrite the secret file.
import { expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { startKbqa } from "../helpers/server.ts";
import { corpus, initOk, put } from "../documents/helpers.ts";

test("an upload URL issued before a restart is accepted after it; the secret file is unchanged", async () => {
  const first = await startKbqa({ keepData: true });
  const dataDir = first.dataDir;
  let k = first;
  try {
    const org = await first.org();
    const i = await initOk(org, { corpusId: await corpus(org) });
    const secret = readFileSync(join(dataDir, "storage.secret"), "utf8");
    await first.stop();
    k = await startKbqa({ dataDir, keepData: true });
    expect(readFileSync(join(dataDir, "storage.secret"), "utf8")).toBe(secret);
    // The URL carries the first server's origin; the restarted one listens on another port.
    const u = new URL(i.uploadUrl);
    const r = await put(k.url + u.pathname + u.search, "kept across a restart", "text/plain");
    expect({ status: r.status, body: r.text }).toEqual({ status: 200, body: "" });
    expect(readFileSync(join(dataDir, "blobs", "orgs", org.orgId, "docs", i.document.id, "original"), "utf8")).toBe("kept across a restart");
    // org.api talks to the first server; its key is in the data directory, so its JWT works here too.
    const commit = await k.request("POST", `/v1/doc/${i.document.id}/commit`, undefined, { authorization: `Bearer ${await org.jwt()}` });
    expect(commit.status).toBe(202);
  } finally {
    await k.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 60_000);
