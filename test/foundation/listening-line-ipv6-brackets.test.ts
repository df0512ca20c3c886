// `serve --host ::1` printed "kbqa listening on http://::1:PORT": not a URL (new URL() throws, curl
// reads "::1:PORT" as a host), though the line is the contract scripts and tests parse for the
// address. An IPv6 literal is written in brackets, as `kbqa ping` already wrote its default URL.
import { expect, test } from "bun:test";
import { networkInterfaces } from "node:os";
import { runCli, startKbqa } from "../helpers/server.ts";

const HAS_IPV6_LOOPBACK = Object.values(networkInterfaces()).some((list) => list?.some((a) => a.family === "IPv6" && a.address === "::1"));

test.skipIf(!HAS_IPV6_LOOPBACK)("--host ::1: the listening line is a URL that reaches the server, and ping finds it", async () => {
  await using k = await startKbqa({ flags: ["--host", "::1"] });
  const url = new URL(k.url);
  expect(url.hostname).toBe("[::1]");
  expect(k.url).toBe(`http://[::1]:${url.port}`);
  const r = await fetch(`${k.url}/pub/ping`);
  expect(r.status).toBe(200);
  // Presigned storage URLs take the request's own origin, which is the bracketed one.
  const org = await k.org();
  const corpus = (await org.api("POST", "/v1/corpus/", { name: "v6" })).body as { id: string };
  const init = await org.api("POST", "/v1/doc/init", { corpusId: corpus.id, filename: "a.txt", contentType: "text/plain" });
  expect(String((init.body as { uploadUrl: string }).uploadUrl)).toStartWith(`http://[::1]:${url.port}/storage/`);
  expect((await runCli(["ping", "--host", "::1", "--port", url.port])).code).toBe(0);
}, 60_000);

test("an IPv4 address keeps its plain form", async () => {
  await using k = await startKbqa({ flags: ["--host", "127.0.0.1"] });
  expect(k.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
}, 60_000);
