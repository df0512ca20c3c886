// An upload to a full data disk answers 507 in S3's XML (MinIO's answer), leaves no file and
// spends no single-use URL: the same URL works once space is freed. See also
// test/foundation/disk-full.test.ts (API writes, restarts) and test/ingest/disk-full.test.ts.
import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { CAN_MOUNT, smallDisk } from "../helpers/small-disk.ts";
import { startKbqa, waitFor } from "../helpers/server.ts";

if (!CAN_MOUNT) console.warn("disk-full tests: mounting a tmpfs needs root on Linux; not run here");

const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));

describe.skipIf(!CAN_MOUNT)("a full data disk (a real tmpfs filled to the last byte)", () => {
  test("an upload PUT answers 507 StorageFull and leaves no file; the same URL works once space is freed", async () => {
    await using disk = smallDisk(64);
    await using k = await startKbqa({ dataDir: disk.dataDir });
    const org = await k.org();
    const corpusId = (await org.api("POST", "/v1/corpus/", { name: "c" })).body.id;
    const init = await org.api("POST", "/v1/doc/init", { corpusId, filename: "a.md", contentType: "text/markdown" });
    const body = "# Full\n\n" + "a sentence about disks. ".repeat(8_000);
    const put = () => fetch(init.body.uploadUrl, { method: "PUT", headers: { "content-type": "text/markdown" }, body });
    const blobs = join(disk.dataDir, "blobs");
    const before = filesUnder(blobs);

    disk.fill();
    const refused = await put();
    expect(refused.status).toBe(507);
    const xml = await refused.text();
    expect(xml).toContain("<Code>StorageFull</Code>");
    expect(xml).toContain("data disk is full");
    expect(filesUnder(blobs)).toEqual(before);

    disk.free();
    const stored = await put();
    expect(stored.status).toBe(200);
    const id = init.body.document.id;
    expect((await org.api("POST", `/v1/doc/${id}/commit`)).status).toBe(202);
    await waitFor(async () => (await org.api("GET", `/v1/doc/${id}/status`)).body.status === "READY", "READY");
  });

  test("an upload whose bytes fit but whose record does not answers 507, and its URL still works once space is freed", async () => {
    // With 64 KiB left, a body of about that size is stored and then SQLite cannot grow its log
    // to record it (or the body itself does not fit): either way 507, never 500, and the URL is
    // not spent (a claim that outlived its write used to answer 412 until a restart).
    await using disk = smallDisk(64);
    await using k = await startKbqa({ dataDir: disk.dataDir });
    const org = await k.org();
    const corpusId = (await org.api("POST", "/v1/corpus/", { name: "c" })).body.id;
    const refused: { id: string; url: string; body: string }[] = [];
    for (const kib of [40, 44, 48, 52, 56, 60, 64]) {
      const init = await org.api("POST", "/v1/doc/init", { corpusId, filename: `${kib}.md`, contentType: "text/markdown" });
      const body = `# ${kib} KiB\n\n`.padEnd(kib * 1024, "x");
      disk.truncateWal();
      disk.fill(64 * 1024);
      const put = await fetch(init.body.uploadUrl, { method: "PUT", headers: { "content-type": "text/markdown" }, body });
      disk.free();
      expect([200, 507]).toContain(put.status);
      if (put.status === 507) refused.push({ id: init.body.document.id, url: init.body.uploadUrl, body });
    }
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) {
      const again = await fetch(r.url, { method: "PUT", headers: { "content-type": "text/markdown" }, body: r.body });
      expect(again.status).toBe(200);
      expect((await org.api("POST", `/v1/doc/${r.id}/commit`)).status).toBe(202);
    }
    expect(k.stderr()).not.toContain("unhandled error");
  });

});
