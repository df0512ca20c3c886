// "A crash mid-upload never leaves a half object under the final key", made deterministic (the
// crash-consistency run meets it only by chance): the server is SIGKILLed while a chunked PUT
// has written part of its body. Nothing is under the key; the next start removes the temporary
// file, and the same URL then works, since its claim died with the process.
import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { startKbqa, waitFor } from "../helpers/server.ts";
import { corpus, initOk, put } from "../documents/helpers.ts";

test("SIGKILL during a PUT: no object under the key, the temporary file goes at the next start, the URL is usable again", async () => {
  const first = await startKbqa({ keepData: true });
  const dataDir = first.dataDir;
  let k = first;
  let socket: Socket | undefined;
  try {
    const org = await first.org();
    const i = await initOk(org, { corpusId: await corpus(org) });
    const dir = join(dataDir, "blobs", "orgs", org.orgId, "docs", i.document.id);
    const u = new URL(i.uploadUrl);
    // Chunked: each chunk is written as it arrives. Four 64 KiB chunks, then the body is held open.
    socket = connect(Number(u.port), u.hostname);
    socket.on("error", () => {}); // the kill resets it
    socket.write(`PUT ${u.pathname}${u.search} HTTP/1.1\r\nhost: ${u.host}\r\ncontent-type: text/plain\r\ntransfer-encoding: chunked\r\n\r\n`);
    const chunk = "k".repeat(65_536);
    for (let n = 0; n < 4; n++) socket.write(`${(65_536).toString(16)}\r\n${chunk}\r\n`);
    const written = () => (existsSync(dir) ? readdirSync(dir).filter((f) => statSync(join(dir, f)).size >= 4 * 65_536) : []);
    const [partial] = await waitFor(() => (written().length ? written() : null), "part of the body on disk", 20_000);
    await first.stop("SIGKILL");
    expect(partial).not.toBe("original");
    expect(readdirSync(dir)).toEqual([partial]);

    k = await startKbqa({ dataDir, keepData: true });
    await waitFor(() => readdirSync(dir).length === 0, "the temporary file to be removed", 10_000);
    const body = "the whole upload";
    const r = await put(k.url + u.pathname + u.search, body, "text/plain");
    expect(r.status).toBe(200);
    expect(readFileSync(join(dir, "original"), "utf8")).toBe(body);
    const commit = await k.request("POST", `/v1/doc/${i.document.id}/commit`, undefined, { authorization: `Bearer ${await org.jwt()}` });
    expect([commit.status, commit.body.size]).toEqual([202, body.length]);
  } finally {
    socket?.destroy();
    await k.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 60_000);
