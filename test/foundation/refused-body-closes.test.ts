import { afterAll, beforeAll, expect, test } from "bun:test";
import { connect } from "node:net";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

// A request refused before its body is read answers `Connection: close`; Bun 1.3 did not close
// the socket, which stayed open until the 255 s idle timeout, and a client that reuses
// connections (Bun's fetch) sent its next request into it and waited.
let k: Kbqa;
let a: Org;
beforeAll(async () => {
  k = await startKbqa();
  a = await k.org();
});
afterAll(() => k?.stop());

/** Sends the head and a first slice of a body, then reads until the server closes; resolves the status line and how long the close took after the answer began. */
function refusedUpload(head: string): Promise<{ statusLine: string; closedAfterMs: number }> {
  const { port } = new URL(k.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), "127.0.0.1");
    let text = "";
    let answeredAt = 0;
    const deadline = setTimeout(() => {
      socket.destroy();
      reject(new Error(`still open 20 s after ${JSON.stringify(text.split("\r\n")[0])}`));
    }, 20_000);
    socket.on("connect", () => socket.write(head + "x".repeat(64 * 1024)));
    socket.on("data", (d) => {
      answeredAt ||= performance.now();
      text += d.toString();
    });
    socket.on("error", () => {}); // a reset is a close too
    socket.on("close", () => {
      clearTimeout(deadline);
      resolve({ statusLine: text.split("\r\n")[0]!, closedAfterMs: performance.now() - answeredAt });
    });
  });
}

const head = (auth: string, target = "POST /v1/corpus/", type = "application/json") =>
  `${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Content-Type: ${type}\r\nContent-Length: 17825821\r\n\r\n`;

test("a body over the API limit: 413, then the connection is closed", async () => {
  const r = await refusedUpload(head(`Authorization: Bearer ${await a.jwt()}\r\n`));
  expect(r.statusLine).toBe("HTTP/1.1 413 Payload Too Large");
  expect(r.closedAfterMs).toBeLessThan(15_000);
});

test("a body without a credential: 403, then the connection is closed", async () => {
  const r = await refusedUpload(head(""));
  expect(r.statusLine).toBe("HTTP/1.1 403 Forbidden");
  expect(r.closedAfterMs).toBeLessThan(15_000);
});

test("a storage PUT refused before its body (tampered signature): 403, then the connection is closed", async () => {
  const corpusId = (await a.api("POST", "/v1/corpus/", { name: "c" })).body.id;
  const init = await a.api("POST", "/v1/doc/init", { corpusId, filename: "a.txt", contentType: "text/plain" });
  const url = new URL(init.body.uploadUrl);
  url.searchParams.set("X-Kbqa-Signature", "0".repeat(64));
  const r = await refusedUpload(head("", `PUT ${url.pathname}${url.search}`, "text/plain"));
  expect(r.statusLine).toBe("HTTP/1.1 403 Forbidden");
  expect(r.closedAfterMs).toBeLessThan(15_000);
});

test("Bun's fetch, which reuses connections, gets its next answer at once after a 413", async () => {
  const jwt = await a.jwt();
  const big = await fetch(`${k.url}/v1/corpus/`, { method: "POST", headers: { authorization: `Bearer ${jwt}`, "content-type": "application/json" }, body: new Uint8Array(17 * 1024 * 1024) });
  expect(big.status).toBe(413);
  const t = performance.now();
  const next = await fetch(`${k.url}/v1/corpus/`, { headers: { authorization: `Bearer ${jwt}` }, signal: AbortSignal.timeout(15_000) });
  expect([next.status, performance.now() - t < 15_000]).toEqual([200, true]);
});
