// URLs and addresses: ping, models fetch and serve say what failed in one line (invalid URL,
// cannot connect, address in use or not of this machine) instead of silence or Bun's text.
import { expect, test } from "bun:test";
import { createServer } from "node:net";
import { join } from "node:path";
import { runCli, startKbqa, tempDir } from "../helpers/server.ts";

const run = async (args: string[]) => {
  const r = await runCli(args);
  return { code: r.code, stdout: r.stdout, stderr: r.stderr };
};
const first = async (args: string[]) => {
  const r = await runCli(args);
  return { code: r.code, stdout: r.stdout, error: r.stderr.split("\n")[0] };
};
const failure = (line: string) => ({ code: 1, stdout: "", stderr: `${line}\n` });

/** A port on 127.0.0.1 that is listening (in use) for the test's duration. */
async function busyPort(): Promise<{ port: number } & AsyncDisposable> {
  const s = createServer();
  await new Promise<void>((r) => s.listen({ host: "127.0.0.1", port: 0 }, r));
  return { port: (s.address() as { port: number }).port, [Symbol.asyncDispose]: () => new Promise<void>((r) => s.close(() => r())) };
}

test("ping: an invalid URL is a usage error; an unreachable one says so", async () => {
  expect(await first(["ping", "--url", "notaurl"])).toEqual({ code: 2, stdout: "", error: 'kbqa ping: --url: must be an http:// or https:// URL, got "notaurl"' });
  expect(await run(["ping", "--url", "http://127.0.0.1:1"])).toEqual(failure("kbqa ping: could not connect to http://127.0.0.1:1 (connection refused)"));
});

test("ping: an answer other than 200 is named", async () => {
  using server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("no", { status: 503 }) });
  expect(await run(["ping", "--url", server.url.href])).toEqual(failure(`kbqa ping: GET ${new URL("/pub/ping", server.url).href} answered 503`));
});

test("models fetch: --hub-url: must be a URL; an unreachable hub is one line", async () => {
  using d = tempDir();
  expect(await first(["models", "fetch", "--hub-url", "notaurl", "--models", d.path])).toEqual({
    code: 2,
    stdout: "",
    error: 'kbqa models fetch: --hub-url: must be an http:// or https:// URL, got "notaurl"',
  });
  expect(await run(["models", "fetch", "--hub-url", "http://127.0.0.1:1", "--models", join(d.path, "m")])).toEqual(
    failure("kbqa models fetch: could not connect to http://127.0.0.1:1 (connection refused)"),
  );
});

test("serve: an address in use, or not of this machine, is told apart", async () => {
  using d = tempDir();
  await using busy = await busyPort();
  const data = ["--data", d.path];
  expect(await run(["serve", "--port", String(busy.port), ...data])).toEqual(
    failure(`kbqa serve: cannot listen on 127.0.0.1:${busy.port}: the address is already in use (--host, --port)`),
  );
  expect(await run(["serve", "--host", "192.0.2.1", "--port", "0", ...data])).toEqual(
    failure("kbqa serve: cannot listen on 192.0.2.1:0: 192.0.2.1 is not an address of this machine (--host)"),
  );
  expect(await first(["serve", "--host", "999.1.1.1", ...data])).toEqual({
    code: 2,
    stdout: "",
    error: 'kbqa serve: --host: must be an IP address or a host name (e.g. 127.0.0.1, 0.0.0.0, ::1, localhost), got "999.1.1.1"',
  });
});

test("serve: a port another kbqa server listens on is in use, not shared", async () => {
  // Elysia asks Bun for SO_REUSEPORT by default: a second server (other data) bound the same port
  // and the kernel spread requests between the two, each answering from its own data.
  await using k = await startKbqa();
  using d = tempDir();
  const port = new URL(k.url).port;
  expect(await run(["serve", "--port", port, "--data", d.path])).toEqual(
    failure(`kbqa serve: cannot listen on 127.0.0.1:${port}: the address is already in use (--host, --port)`),
  );
});
