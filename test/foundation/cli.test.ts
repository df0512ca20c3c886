import { describe, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, startKbqa, tempDir } from "../helpers/server.ts";

describe("operator CLI", () => {
  test("org create / list print JSON", async () => {
    using d = tempDir();
    const made = await runCli(["org", "create", "Acme", "--data", d.path]);
    expect(made.code).toBe(0);
    const org = JSON.parse(made.stdout);
    expect(org).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: "Acme" });
    const list = await runCli(["org", "list"], { KBQA_DATA_DIR: d.path });
    expect(JSON.parse(list.stdout)).toEqual([org]);
  });

  test("key add accepts RSA >= 2048, refuses small and non-RSA keys; list/deactivate/activate/delete", async () => {
    using d = tempDir();
    const org = JSON.parse((await runCli(["org", "create", "K", "--data", d.path])).stdout);
    const pem = (bits: number) => generateKeyPairSync("rsa", { modulusLength: bits }).publicKey.export({ type: "spki", format: "pem" }).toString();
    const write = (name: string, text: string) => {
      const f = join(d.path, name);
      writeFileSync(f, text);
      return f;
    };
    const good = await runCli(["key", "add", "--org", org.id, "--public-key", write("good.pem", pem(2048)), "--kid", "k1", "--data", d.path]);
    expect(good.code).toBe(0);
    expect(JSON.parse(good.stdout)).toEqual({ kid: "k1", orgId: org.id, active: true });
    const gen = await runCli(["key", "add", "--org", org.id, "--public-key", write("g.pem", pem(3072)), "--data", d.path]);
    expect(JSON.parse(gen.stdout).kid).toMatch(/^[0-9a-f-]{36}$/);
    const small = await runCli(["key", "add", "--org", org.id, "--public-key", write("small.pem", pem(1024)), "--data", d.path]);
    expect(small.code).not.toBe(0);
    expect(small.stderr).toContain("2048");
    const ec = generateKeyPairSync("ec", { namedCurve: "P-256" }).publicKey.export({ type: "spki", format: "pem" }).toString();
    const nonRsa = await runCli(["key", "add", "--org", org.id, "--public-key", write("ec.pem", ec), "--data", d.path]);
    expect(nonRsa.code).not.toBe(0);
    expect(nonRsa.stderr).toContain("RSA");
    const garbage = await runCli(["key", "add", "--org", org.id, "--public-key", write("x.pem", "hello"), "--data", d.path]);
    expect(garbage.code).not.toBe(0);
    const noOrg = await runCli(["key", "add", "--org", crypto.randomUUID(), "--public-key", join(d.path, "good.pem"), "--data", d.path]);
    expect(noOrg.code).not.toBe(0);

    expect(JSON.parse((await runCli(["key", "deactivate", "k1", "--data", d.path])).stdout)).toEqual({ kid: "k1", orgId: org.id, active: false });
    expect(JSON.parse((await runCli(["key", "activate", "k1", "--data", d.path])).stdout).active).toBe(true);
    const list = JSON.parse((await runCli(["key", "list", "--org", org.id, "--data", d.path])).stdout);
    expect(list.map((x: { kid: string }) => x.kid)).toContain("k1");
    expect((await runCli(["key", "delete", "k1", "--data", d.path])).code).toBe(0);
    expect((await runCli(["key", "delete", "k1", "--data", d.path])).code).toBe(1);
  });

  test("usage errors exit 2 on stderr; --help exits 0", async () => {
    const unknown = await runCli(["frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Usage");
    const badFlag = await runCli(["org", "list", "--nope", "1"]);
    expect(badFlag.code).toBe(2);
    const badPort = await runCli(["serve", "--port", "abc"]);
    expect(badPort.code).toBe(2);
    expect(badPort.stderr).toContain("--port");
    for (const v of ["-5", "abc", "1.5"]) {
      const badIdle = await runCli(["serve", "--worker-idle-ms", v]);
      expect([badIdle.code, badIdle.stderr.includes("--worker-idle-ms")]).toEqual([2, true]);
    }
    const help = await runCli(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("key add");
    const cmdHelp = await runCli(["key", "add", "--help"]);
    expect(cmdHelp.code).toBe(0);
    expect(cmdHelp.stdout).toContain("--public-key");
  });

  test("serve prints exactly one listening line and exits 0 on SIGTERM and SIGINT", async () => {
    for (const sig of ["SIGTERM", "SIGINT"] as const) {
      const k = await startKbqa();
      expect(k.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await k.request("GET", "/pub/ping")).status).toBe(200);
      expect(await k.stop(sig)).toBe(0);
    }
  });

  test("in-flight requests finish during shutdown", async () => {
    const k = await startKbqa();
    const org = await k.org();
    const pending = Array.from({ length: 20 }, () => org.api("POST", "/v1/corpus/", { name: "x" }));
    const first = await pending[0];
    k.proc.kill("SIGTERM");
    const rest = await Promise.allSettled(pending);
    expect(first.status).toBe(200);
    // Every request either completed or was refused before it was accepted: none half-done.
    for (const r of rest) if (r.status === "fulfilled") expect(r.value.status).toBe(200);
    expect(await k.stop()).toBe(0);
  });
});
