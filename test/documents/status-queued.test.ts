// A committed document no worker has taken yet showed a bare PROCESSING, for up to 19 s behind a
// burst of large uploads in the audit, indistinguishable from a stuck one.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, waitFor, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, upload } from "./helpers.ts";

let k: Kbqa;
let org: Org;
beforeAll(async () => {
  // One worker, so a large document keeps the ones committed after it waiting.
  k = await startKbqa({ flags: ["--workers", "1"] });
  org = await k.org();
});
afterAll(() => k?.stop());

/** Markdown of about `kb` KiB, above the size ingested in groups, distinct per call. */
const text = (kb: number) => `# ${crypto.randomUUID()}\n\n` + Array.from({ length: kb * 8 }, (_, i) => `Paragraph ${i} about ${crypto.randomUUID()} and more words here.\n\n`).join("");

test("a document waiting for a worker says stage 'queued' and how many of the organization's are before it", async () => {
  const corpusId = await corpus(org);
  const big = await upload(org, corpusId, text(1000), { filename: "big.md", contentType: "text/markdown" });
  const [second, third] = [await upload(org, corpusId, text(100), { filename: "b.md", contentType: "text/markdown" }), await upload(org, corpusId, text(100), { filename: "c.md", contentType: "text/markdown" })];
  for (const u of [big, second, third]) expect(u.commit.status).toBe(202);
  const status = async (id: string) => (await org.api("GET", `/v1/doc/${id}/status`)).body;
  expect(await status(third.init.document.id)).toEqual({ id: third.init.document.id, status: "PROCESSING", stage: "queued", ahead: 1, updatedAt: expect.any(String) });
  expect(await status(second.init.document.id)).toEqual({ id: second.init.document.id, status: "PROCESSING", stage: "queued", ahead: 0, updatedAt: expect.any(String) });
  expect((await status(big.init.document.id)).stage).not.toBe("queued");

  for (const u of [big, second, third]) {
    await waitFor(async () => (await status(u.init.document.id)).status === "READY", "READY", 120_000, 100);
    expect(await status(u.init.document.id)).toEqual({ id: u.init.document.id, status: "READY", updatedAt: expect.any(String) });
  }
});
