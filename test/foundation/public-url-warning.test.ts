// Presigned URLs take their origin from the request's Host header unless --public-url is set. A
// server reachable from other machines says so at start; one on loopback, or with the flag, does not.
import { expect, test } from "bun:test";
import { startKbqa, waitFor } from "../helpers/server.ts";

const ADVICE = "set --public-url (KBQA_PUBLIC_URL) to the address clients use";

test("listening on all interfaces without --public-url: one line of advice on stderr", async () => {
  await using k = await startKbqa({ flags: ["--host", "0.0.0.0"] });
  await waitFor(() => k.stderr().includes(ADVICE), "the advice");
  expect(JSON.parse(k.stderr().split("\n").find((l) => l.includes(ADVICE))!)).toMatchObject({ level: "info", host: "0.0.0.0" });
});

test("with --public-url, or on loopback, no such line", async () => {
  await using withUrl = await startKbqa({ flags: ["--host", "0.0.0.0", "--public-url", "https://kb.example.org"] });
  await using loopback = await startKbqa();
  // Both have answered a request, so anything logged at start is in their stderr.
  expect((await fetch(`${loopback.url}/pub/ping`)).status).toBe(200);
  expect((await fetch(`http://127.0.0.1:${new URL(withUrl.url).port}/pub/ping`)).status).toBe(200);
  expect(withUrl.stderr()).not.toContain(ADVICE);
  expect(loopback.stderr()).not.toContain(ADVICE);
});
