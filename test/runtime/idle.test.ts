import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { startIdleMaintenance } from "../../src/runtime/idle.ts";
import { cleanFileMappings, releaseMemory } from "../../src/runtime/release-memory.ts";
import { startKbqa, waitFor, type Kbqa } from "../helpers/server.ts";

function fakeIdle(busy = () => false) {
  let t = 1_000;
  let calls = 0;
  let fail = false;
  const errors: unknown[] = [];
  const idle = startIdleMaintenance({
    quietMs: 5_000, checkMs: 3_600_000, now: () => t, busy,
    run: async () => {
      calls++;
      if (fail) throw new Error("boom");
      return { n: calls };
    },
    onError: (e) => errors.push(e),
  });
  return {
    idle, errors,
    advance: (ms: number) => (t += ms),
    calls: () => calls,
    failNext: () => (fail = true),
  };
}

describe("idle maintenance scheduling", () => {
  test("runs once after the quiet time, again only after new activity", async () => {
    const f = fakeIdle();
    f.advance(4_999);
    await f.idle.check();
    expect(f.calls()).toBe(0);
    f.advance(1);
    await f.idle.check();
    expect([f.calls(), f.idle.runs(), f.idle.last()]).toEqual([1, 1, { n: 1 }]);
    f.advance(60_000);
    await f.idle.check();
    expect(f.calls()).toBe(1);
    f.idle.touch();
    f.advance(4_000);
    await f.idle.check();
    expect(f.calls()).toBe(1);
    f.advance(1_000);
    await f.idle.check();
    expect(f.calls()).toBe(2);
    f.idle.stop();
  });

  test("busy work (requests in flight, ingestion) postpones it by a full quiet time", async () => {
    let busy = true;
    const f = fakeIdle(() => busy);
    f.advance(10_000);
    await f.idle.check();
    expect(f.calls()).toBe(0);
    busy = false;
    f.advance(4_000);
    await f.idle.check();
    expect(f.calls()).toBe(0);
    f.advance(1_000);
    await f.idle.check();
    expect(f.calls()).toBe(1);
    f.idle.stop();
  });

  test("a failing run is reported and does not stop later runs", async () => {
    const f = fakeIdle();
    f.failNext();
    f.advance(5_000);
    await f.idle.check();
    expect(f.errors.map(String)).toEqual(["Error: boom"]);
    expect(f.idle.runs()).toBe(0);
    f.idle.touch();
    f.advance(5_000);
    await f.idle.check();
    expect(f.calls()).toBe(2);
    f.idle.stop();
  });
});

const SMAPS = [
  "00400000-00800000 r-xp 00000000 08:01 11 /usr/bin/app",
  "Rss:                4096 kB", "Private_Dirty:         0 kB", "Shared_Dirty:          0 kB",
  "00800000-00900000 r--p 00400000 08:01 11 /usr/bin/app",
  "Rss:                1024 kB", "Private_Dirty:       512 kB", "Shared_Dirty:          0 kB",
  "00900000-00a00000 rw-p 00500000 08:01 11 /usr/bin/app",
  "Rss:                1024 kB", "Private_Dirty:         0 kB",
  "00a00000-00b00000 r--s 00000000 08:01 12 /data/kbqa.sqlite",
  "Rss:                1024 kB", "Private_Dirty:         0 kB",
  "00b00000-00c00000 r--p 00000000 00:00 0 ",
  "Rss:                1024 kB", "Private_Dirty:         0 kB",
  "00c00000-00d00000 r-xp 00000000 08:01 13 /lib/small.so",
  "Rss:                   8 kB", "Private_Dirty:         0 kB",
  "01000000-01400000 r--p 00000000 08:01 15 /models/model.gguf",
  "Rss:                4096 kB", "Private_Dirty:         0 kB",
  "7f0000000000-7f0000400000 r--p 00000000 08:01 14 /tmp/addon.node (deleted)",
  "Rss:                2048 kB", "Private_Dirty:         0 kB", "Shared_Dirty:          0 kB", "VmFlags: rd mr mw me",
  "7f0000400000-7f0000401000 r-xp 00400000 08:01 14 /tmp/addon.node (deleted)",
  "Rss:                   4 kB", "Private_Dirty:         0 kB",
  "7fff0000-7fff2000 r-xp 00000000 00:00 0 [vdso]",
  "Rss:                   8 kB", "Private_Dirty:         0 kB",
].join("\n");

describe("which mappings are dropped", () => {
  test("only clean, private, read-only mappings of program files, worth a system call", () => {
    expect(cleanFileMappings(SMAPS)).toEqual([
      { start: 0x400000, end: 0x800000, rss: 4096 * 1024 },
      { start: 0x7f0000000000, end: 0x7f0000400000, rss: 2048 * 1024 },
    ]);
  });
});

describe("releasing memory in this process", () => {
  test.if(process.platform === "linux")("drops resident code pages, and code keeps running", async () => {
    const r = await releaseMemory({ codePages: true });
    // Bun's own code is a clean file mapping of several MB that this test has been executing.
    expect(r.codeBytes).toBeGreaterThan(4 * 2 ** 20);
    expect(r.rssAfter).toBeLessThan(r.rssBefore - 4 * 2 ** 20);
    const { heapStats } = await import("bun:jsc");
    expect(heapStats().heapSize).toBeGreaterThan(0);
    expect(JSON.parse(JSON.stringify({ still: ["works"] }))).toEqual({ still: ["works"] });
  });

  test("without codePages no mapping is dropped; gc only when asked", async () => {
    const r = await releaseMemory({ gc: true });
    expect(r.codeBytes).toBe(0);
    expect(r.gcMs).toBeGreaterThan(0);
    expect((await releaseMemory()).gcMs).toBeLessThan(r.gcMs);
  });
});

describe("the server", () => {
  let k: Kbqa;
  beforeAll(async () => (k = await startKbqa()));
  afterAll(() => k?.stop());

  const fileRss = () => Number(/RssFile:\s+(\d+)/.exec(readFileSync(`/proc/${k.proc.pid}/status`, "utf8"))![1]) * 1024;

  test.if(process.platform === "linux")("gives its code pages back once idle, and serves the next request", async () => {
    expect((await k.request("GET", "/pub/ping")).status).toBe(200);
    const warm = fileRss();
    // The quiet time is 5 s: a dozen MB of file-backed pages disappear some time after it.
    await waitFor(() => fileRss() < warm - 12 * 2 ** 20, "file-backed RSS to drop after idle", 30_000, 250);
    expect((await k.request("GET", "/pub/ping")).status).toBe(200);
  }, 40_000);
});
