// A write that finishes while the index closes (queued before close(), committed during it) used to
// arm the timer of a paced optimize after close() had cleared it: the timer did nothing once it
// fired (the index is closed) but kept the process alive until then, 5 s on a table past
// FTS_SYNC_MAX_ROWS. A closed index must leave no timer: a process that closes it exits at once.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLanceIndex } from "../../src/store/lance.ts";
import { FTS_SYNC_MAX_ROWS, LARGE_SETTLE_MS } from "../../src/store/refresh-pace.ts";
import { newId } from "../../src/store/ids.ts";
import type { VectorRecord } from "../../src/store/vector.ts";
import { ROOT } from "../helpers/server.ts";

const dir = mkdtempSync(join(tmpdir(), "kbqa-lance-close-timer-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const org = newId(), corpus = newId();
const row = (i: number): VectorRecord =>
  ({ chunkId: newId(), orgId: org, corpusId: corpus, documentId: newId(), generation: 1, text: "word" + (i % 100), vector: Float32Array.from([1, i]) });

const child = (path: string) => `
const { openLanceIndex } = await import(${JSON.stringify(join(ROOT, "src/store/lance.ts"))});
const { newId } = await import(${JSON.stringify(join(ROOT, "src/store/ids.ts"))});
const idx = await openLanceIndex(${JSON.stringify(path)}, "test-embed", 2);
await idx.vectorCopyReady();
const write = idx.add([{ chunkId: newId(), orgId: ${JSON.stringify(org)}, corpusId: ${JSON.stringify(corpus)}, documentId: newId(), generation: 1, text: "late write", vector: Float32Array.from([0, 1]) }]);
await idx.close();
await write;
const closedAt = performance.now();
process.on("exit", () => console.log(JSON.stringify({ exitAfterCloseMs: performance.now() - closedAt })));
`;

test("a write committed during close() leaves no timer: the process exits right after close", async () => {
  const path = join(dir, "t");
  let idx = await openLanceIndex(path, "test-embed", 2);
  // Past FTS_SYNC_MAX_ROWS, where a paced optimize waits LARGE_SETTLE_MS after a write.
  const rows = FTS_SYNC_MAX_ROWS + 100;
  for (let i = 0; i < rows; i += 10_000) await idx.add(Array.from({ length: Math.min(10_000, rows - i) }, (_, j) => row(i + j)));
  await idx.close();

  const p = Bun.spawn([process.execPath, "-e", child(path)], { stdout: "pipe", stderr: "pipe" });
  const deadline = setTimeout(() => p.kill(), 60_000);
  const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  clearTimeout(deadline);
  expect(err).toBe("");
  expect(p.exitCode).toBe(0);

  idx = await openLanceIndex(path, "test-embed", 2);
  const committed = await idx.count();
  await idx.close();
  expect(committed).toBe(rows + 1);
  // Before the fix the process stayed until the timer fired, LARGE_SETTLE_MS after the write.
  expect(JSON.parse(out).exitAfterCloseMs).toBeLessThan(LARGE_SETTLE_MS / 2);
}, 120_000);
