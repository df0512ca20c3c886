// key add / key list: the --public-key file and --kid are checked with plain messages (no OpenSSL
// or errno text); a private key is refused; an unknown organization is an error for list too.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, tempDir } from "../helpers/server.ts";

const d = tempDir("kbqa-cli-key-");
let org = "";
const pair = generateKeyPairSync("rsa", { modulusLength: 2048 });
const file = (name: string, text: string) => {
  const p = join(d.path, name);
  writeFileSync(p, text);
  return p;
};
const run = async (...args: string[]) => {
  const r = await runCli([...args, "--data", d.path]);
  return { code: r.code, stdout: r.stdout, stderr: r.stderr };
};
const failure = (code: number, line: string) => ({ code, stdout: "", stderr: `${line}\n` });

beforeAll(async () => {
  org = JSON.parse((await run("org", "create", "Keys")).stdout).id;
});
afterAll(() => d[Symbol.dispose]());

test("--public-key: a missing file, a directory, a file that is not PEM", async () => {
  const missing = join(d.path, "nope.pem");
  expect(await run("key", "add", "--org", org, "--public-key", missing)).toEqual(failure(1, `kbqa key add: --public-key: no such file ${missing}`));
  mkdirSync(join(d.path, "dir.pem"));
  expect(await run("key", "add", "--org", org, "--public-key", join(d.path, "dir.pem"))).toEqual(
    failure(1, `kbqa key add: --public-key: ${join(d.path, "dir.pem")} is a directory`),
  );
  const text = file("hostname", "myhost\n");
  expect(await run("key", "add", "--org", org, "--public-key", text)).toEqual(
    failure(1, `kbqa key add: --public-key: ${text} is not a PEM public key (expected a "-----BEGIN PUBLIC KEY-----" block)`),
  );
});

test("a private key given as --public-key is refused and not stored", async () => {
  for (const type of ["pkcs8", "pkcs1"] as const) {
    const priv = file(`private-${type}.pem`, pair.privateKey.export({ type, format: "pem" }).toString());
    expect(await run("key", "add", "--org", org, "--public-key", priv, "--kid", `priv-${type}`)).toEqual(
      failure(1, `kbqa key add: --public-key: ${priv} holds a private key, which must stay with you; give its public key (openssl rsa -in ${priv} -pubout -out public.pem)`),
    );
  }
  expect(JSON.parse((await run("key", "list", "--org", org)).stdout)).toEqual([]);
  const pub = file("public.pem", pair.publicKey.export({ type: "spki", format: "pem" }).toString());
  expect(await run("key", "add", "--org", org, "--public-key", pub, "--kid", "ok.1:A_b-2")).toEqual({
    code: 0,
    stdout: `${JSON.stringify({ kid: "ok.1:A_b-2", orgId: org, active: true })}\n`,
    stderr: "",
  });
});

test("--kid is 1 to 128 characters of a safe set", async () => {
  const pub = file("public2.pem", pair.publicKey.export({ type: "spki", format: "pem" }).toString());
  const rule = "--kid: must be 1 to 128 characters from A-Z a-z 0-9 . _ - :";
  const long = await run("key", "add", "--org", org, "--public-key", pub, "--kid", "k".repeat(3000));
  expect([long.code, long.stderr.split("\n")[0]]).toEqual([2, `kbqa key add: ${rule} (got 3000 characters)`]);
  const spaced = await run("key", "add", "--org", org, "--public-key", pub, "--kid", "a b");
  expect([spaced.code, spaced.stderr.split("\n")[0]]).toEqual([2, `kbqa key add: ${rule} (got "a b")`]);
  expect((await run("key", "add", "--org", org, "--public-key", pub, "--kid", "k".repeat(128))).code).toBe(0);
});

test("key list --org of an unknown organization is an error, like key add", async () => {
  expect(await run("key", "list", "--org", "nope")).toEqual(failure(1, "kbqa key list: no organization with id nope"));
  const pub = file("public3.pem", pair.publicKey.export({ type: "spki", format: "pem" }).toString());
  expect(await run("key", "add", "--org", "nope", "--public-key", pub)).toEqual(failure(1, "kbqa key add: no organization with id nope"));
});
