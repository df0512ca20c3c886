// A full or read-only data disk is the operator's condition, not the client's fault and not a
// bug: API writes answer 507 with the error object naming it while reads go on, a restart on a
// full disk serves what is stored and finishes interrupted work once space is back, and a
// command that cannot open its data says so in one line.
import { describe, expect, test } from "bun:test";
import { CAN_MOUNT, smallDisk } from "../helpers/small-disk.ts";
import { startKbqa, waitFor } from "../helpers/server.ts";

if (!CAN_MOUNT) console.warn("disk-full tests: mounting a tmpfs needs root on Linux; not run here");

describe.skipIf(!CAN_MOUNT)("a full or read-only data disk (a real tmpfs)", () => {
  test("API writes answer 507 with the error object while reads go on; writes work again once space is freed", async () => {
    await using disk = smallDisk(64);
    await using k = await startKbqa({ dataDir: disk.dataDir });
    const org = await k.org();
    expect((await org.api("POST", "/v1/corpus/", { name: "before" })).status).toBe(200);

    disk.truncateWal();
    disk.fill();
    const refused = await org.api("POST", "/v1/corpus/", { name: "during" });
    expect(refused.status).toBe(507);
    expect(refused.body).toEqual({
      timestamp: expect.any(String),
      status: 507,
      error: "Insufficient Storage",
      message: "The server's data disk is full: the request was not completed. Retry once space is freed on the data volume",
      path: "/v1/corpus/",
    });
    const listed = await org.api("GET", "/v1/corpus/");
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).toContain("before");
    expect(k.stderr()).not.toContain("unhandled error");

    disk.free();
    expect((await org.api("POST", "/v1/corpus/", { name: "after" })).status).toBe(200);
  });

  test("a server restarts on a full disk mid-ingestion, serves what it holds, and finishes the document once space is freed", async () => {
    await using disk = smallDisk(64);
    const first = await startKbqa({ dataDir: disk.dataDir });
    const org = await first.org();
    const corpusId = (await org.api("POST", "/v1/corpus/", { name: "kept" })).body.id;
    const init = await org.api("POST", "/v1/doc/init", { corpusId, filename: "big.md", contentType: "text/markdown" });
    const body = "# Big\n\n" + "Paragraph about storage and recovery, long enough to take a while. ".repeat(30_000);
    expect((await fetch(init.body.uploadUrl, { method: "PUT", headers: { "content-type": "text/markdown" }, body })).status).toBe(200);
    const id = init.body.document.id;
    expect((await org.api("POST", `/v1/doc/${id}/commit`)).status).toBe(202);
    await first.stop("SIGKILL"); // its job is left running, for the next start to recover

    disk.fill(); // recovery's first write must grow the log, on a disk without a byte left
    await using k = await startKbqa({ dataDir: disk.dataDir });
    const auth = { authorization: `Bearer ${await org.jwt()}` };
    const got = await k.request("GET", `/v1/corpus/${corpusId}`, undefined, auth);
    expect(got.status).toBe(200);
    expect(got.body.name).toBe("kept");
    // Recovery could not write: the status and the log say why, instead of a silent PROCESSING.
    const status = await waitFor(async () => {
      const s = (await k.request("GET", `/v1/doc/${id}/status`, undefined, auth)).body;
      return s.waiting ? s : null;
    }, "the status to say ingestion is paused", 10_000);
    expect(status).toMatchObject({ status: "PROCESSING", waiting: expect.stringContaining("the server's data disk is full") });
    expect(k.stderr()).toContain("ingestion paused: the data volume cannot be written");

    disk.free();
    await waitFor(async () => (await k.request("GET", `/v1/doc/${id}/status`, undefined, auth)).body.status === "READY", "READY after space is freed", 60_000);
  });

  test("when SQLite cannot even open the database on a full disk, the server says so in one line, without a stack", async () => {
    await using disk = smallDisk(64);
    const first = await startKbqa({ dataDir: disk.dataDir });
    await first.stop();
    // The last connection to close removes the write-ahead log and its shared-memory index;
    // opening the database again must create them, which needs space.
    disk.truncateWal();
    disk.fill();
    const start = Bun.spawn(["bun", "src/cli.ts", "serve", "--port", "0", "--data", disk.dataDir, "--models", first.modelsDir], { stdout: "pipe", stderr: "pipe" });
    const [stderr, code] = await Promise.all([new Response(start.stderr).text(), start.exited]);
    expect(code).toBe(1);
    expect(stderr.trim()).toBe(
      `kbqa serve: the data directory ${disk.dataDir} is on a full disk (disk I/O error); free space or make it writable (--data / KBQA_DATA_DIR)`,
    );
  });

  test("a command on a read-only data directory says so in one line, without a stack", async () => {
    await using disk = smallDisk(16);
    const first = await startKbqa({ dataDir: disk.dataDir });
    expect(await first.stop()).toBe(0);
    disk.remountReadOnly(true);
    try {
      const r = await first.cli(["org", "create", "ro"]);
      expect(r.code).toBe(1);
      expect(r.stderr.trim()).toBe(
        `kbqa org create: the data directory ${disk.dataDir} is read-only (attempt to write a readonly database); free space or make it writable (--data / KBQA_DATA_DIR)`,
      );
    } finally {
      disk.remountReadOnly(false);
    }
  });
});
