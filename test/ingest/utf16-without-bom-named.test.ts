import { afterAll, beforeAll, expect, test } from "bun:test";
import { TextSniffer } from "../../src/ingest/sniff.ts";
import { corpus, ingestSettled } from "../documents/helpers.ts";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

// A text file saved as UTF-16 without a byte-order mark has a NUL in every other byte, and was
// refused as "the file contains NUL bytes, so it is not text", which tells someone holding a text
// file nothing. The refusal now names UTF-16 and what to do; other NUL bytes are refused as before.

const UTF16 = "the file contains NUL bytes: it looks like UTF-16 text without a byte-order mark, which is not read as text; save it as UTF-8, or as UTF-16 with a byte-order mark";

const utf16le = (s: string) => new Uint8Array(Buffer.from(s, "utf16le"));
const utf16be = (s: string) => utf16le(s).map((_, i, b) => b[i ^ 1]!);

let k: Kbqa;
let a: Org;
beforeAll(async () => {
  k = await startKbqa({ flags: ["--workers", "1"] });
  a = await k.org();
}, 60_000);
afterAll(() => k?.stop());

async function send(bytes: Uint8Array) {
  const r = await ingestSettled(a, await corpus(a, "u16"), "notes.txt", bytes, "text/plain", 30_000);
  return { commit: r.commit, message: r.commitMessage, status: r.status, statusMsg: r.statusMsg };
}

test("UTF-16LE and UTF-16BE without a byte-order mark: 415 and FAILED naming UTF-16", async () => {
  for (const bytes of [utf16le("Meeting notes: the valve is checked every morning."), utf16be("Meeting notes: the valve is checked every morning.")]) {
    expect(await send(bytes)).toEqual({ commit: 415, message: `The uploaded bytes are not text/plain: ${UTF16}`, status: "FAILED", statusMsg: `The uploaded bytes are not text/plain: ${UTF16}` });
  }
});

test("other NUL bytes keep the plain refusal", async () => {
  const r = await send(new TextEncoder().encode("a binary\u0000file with a few\u0000NUL bytes in it"));
  expect(r.statusMsg).toBe("The uploaded bytes are not text/plain: the file contains NUL bytes, so it is not text");
});

test("commit's piece-by-piece check of a large file says the same", () => {
  const s = new TextSniffer();
  const bytes = utf16le("line of text\n".repeat(200_000));
  for (let o = 0; o < bytes.length; o += 1 << 20) s.push(bytes.subarray(o, o + (1 << 20)));
  expect(s.finish()).toBe(UTF16);
});
