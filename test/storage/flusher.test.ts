import { afterAll, describe, expect, test } from "bun:test";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FLUSH_MIN_BYTES, Flusher } from "../../src/storage/flusher.ts";

const root = mkdtempSync(join(tmpdir(), "kbqa-flusher-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("Flusher", () => {
  test("starts a flush once enough bytes are written, never more than its limit at a time, and settles them all", async () => {
    const path = join(root, "a");
    const fd = openSync(path, "w");
    const f = new Flusher(fd, 2);
    const piece = new Uint8Array(FLUSH_MIN_BYTES).fill(7);
    writeSync(fd, piece.subarray(0, 100));
    f.wrote(100);
    const belowThreshold = f.running;
    const seen: number[] = [];
    for (let i = 0; i < 6; i++) {
      writeSync(fd, piece);
      f.wrote(piece.byteLength);
      seen.push(f.running);
    }
    await f.settle();
    const after = f.running;
    closeSync(fd);
    expect({ belowThreshold, max: Math.max(...seen), first: seen[0], after }).toEqual({ belowThreshold: 0, max: 2, first: 1, after: 0 });
    expect(readFileSync(path).length).toBe(100 + 6 * FLUSH_MIN_BYTES);
  });

  test("a failed flush is thrown by settle, after every flush has finished", async () => {
    const fd = openSync("/dev/null", "r"); // fdatasync on a character device: EINVAL
    const f = new Flusher(fd, 2, 1);
    f.wrote(1);
    const e = await f.settle().catch((x) => x);
    const running = f.running;
    closeSync(fd);
    expect([(e as NodeJS.ErrnoException).code, running]).toEqual(["EINVAL", 0]);
  });
});
