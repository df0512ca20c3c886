// One server per data directory: a second one would claim the same ingestion jobs and write the
// same tables, and upload claims live in the memory of the server that took them. The lock is
// released by the kernel when its holder dies, so a restart after kill -9 needs no cleanup.
import { expect, test } from "bun:test";
import { runCli, startKbqa, tempDir } from "../helpers/server.ts";

test("a second server on the same data directory refuses in one line; operator commands still work; kill -9 frees it", async () => {
  using dir = tempDir();
  const first = await startKbqa({ dataDir: dir.path });
  const second = Bun.spawn(["bun", "src/cli.ts", "serve", "--port", "0", "--data", dir.path, "--models", first.modelsDir], { stdout: "pipe", stderr: "pipe" });
  const [stderr, code] = await Promise.all([new Response(second.stderr).text(), second.exited]);
  expect(code).toBe(1);
  expect(stderr.trim()).toBe(`kbqa serve: another kbqa server is using the data directory ${dir.path}; stop it first, or give this one its own --data`);

  const made = await runCli(["org", "create", "beside-the-server", "--data", dir.path, "--models", first.modelsDir]);
  expect(made.code).toBe(0);
  expect(JSON.parse(made.stdout).name).toBe("beside-the-server");

  await first.stop("SIGKILL");
  await using again = await startKbqa({ dataDir: dir.path });
  expect((await fetch(`${again.url}/pub/ping`)).status).toBe(200);
});
