// The default maximum upload is 100 MiB; the other size tests all set --max-upload-bytes.
// Only the headers are sent: a declared length over the limit is refused before any body byte.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, initOk } from "../documents/helpers.ts";

const DEFAULT_MAX = 100 * 1024 * 1024;
let k: Kbqa;
let a: Org;
beforeAll(async () => {
  k = await startKbqa();
  a = await k.org();
}, 60_000);
afterAll(() => k.stop());

/** The first response to a PUT whose body is declared and never sent; rejects if none comes within 10 s. */
function headersOnly(url: string, length: number): Promise<string> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(u.port), u.hostname);
    let got = "";
    const timer = setTimeout(() => (s.destroy(), reject(new Error(`no answer within 10 s to a declared ${length} bytes`))), 10_000);
    s.setEncoding("latin1");
    s.on("data", (d) => {
      got += d;
      const end = got.indexOf("\r\n\r\n");
      const len = Number(/content-length: (\d+)/i.exec(got)?.[1] ?? NaN);
      if (end >= 0 && got.length >= end + 4 + len) (clearTimeout(timer), s.destroy(), resolve(got));
    });
    s.on("error", reject);
    s.write(`PUT ${u.pathname}${u.search} HTTP/1.1\r\nhost: ${u.host}\r\ncontent-type: text/plain\r\ncontent-length: ${length}\r\n\r\n`);
  });
}

test("without --max-upload-bytes, a PUT declaring 100 MiB + 1 answers 413 EntityTooLarge naming 104857600, and writes nothing", async () => {
  const i = await initOk(a, { corpusId: await corpus(a) });
  const r = await headersOnly(i.uploadUrl, DEFAULT_MAX + 1);
  expect(r.split("\r\n")[0]).toBe("HTTP/1.1 413 Payload Too Large");
  expect(r).toContain("<Code>EntityTooLarge</Code>");
  expect(r).toContain(`the maximum is ${DEFAULT_MAX}`);
  expect(existsSync(join(k.dataDir, "blobs", "orgs", a.orgId, "docs", i.document.id))).toBe(false);
});
