/**
 * Starts the real server as a child process (`kbqa serve --port 0`) on a fresh temporary data
 * directory, and gives tests HTTP and CLI access to it. Use with `await using`.
 */
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { exportSPKI, generateKeyPair, SignJWT, type CryptoKey } from "jose";

export const ROOT = resolve(import.meta.dir, "../..");
export const CLI = join(ROOT, "src/cli.ts");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const p = Bun.spawn(["bun", CLI, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, stdout, stderr };
}

let pair: Promise<{ privateKey: CryptoKey; pem: string }> | undefined;
/** One RSA key pair per test process: key generation is the slow part, and kids differ anyway. */
export function sharedKeyPair() {
  pair ??= generateKeyPair("RS256", { modulusLength: 2048 }).then(async (k) => ({
    privateKey: k.privateKey as CryptoKey,
    pem: await exportSPKI(k.publicKey),
  }));
  return pair;
}

export interface Org {
  orgId: string;
  kid: string;
  privateKey: CryptoKey;
  /** A signed RS256 JWT for this organization. */
  jwt(claims?: Record<string, unknown>, opts?: { sub?: string; expSeconds?: number }): Promise<string>;
  /** HTTP with this organization's JWT (or the given headers). */
  api<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResult<T>>;
}

export interface ApiResult<T> {
  status: number;
  body: T;
  headers: Headers;
}

export interface Kbqa extends AsyncDisposable {
  url: string;
  dataDir: string;
  modelsDir: string;
  proc: ReturnType<typeof Bun.spawn>;
  stderr(): string;
  cli(args: string[]): Promise<CliResult>;
  /** Creates an organization and registers a key for it through the CLI. */
  org(name?: string): Promise<Org>;
  /** Raw HTTP with explicit headers. */
  request<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResult<T>>;
  stop(signal?: "SIGTERM" | "SIGINT" | "SIGKILL"): Promise<number>;
}

export interface StartOptions {
  dataDir?: string;
  modelsDir?: string;
  flags?: string[];
  env?: Record<string, string>;
  /** Keep the data directory after stop (for restart tests). */
  keepData?: boolean;
}

/**
 * Servers not stopped yet, with the data directory to remove (none for keepData or a given
 * one). bun test fires no process "exit" event, so test/helpers/preload.ts calls
 * stopLeftovers() after the whole run: a test that threw before stop() leaves no server running.
 */
const live = new Map<ReturnType<typeof Bun.spawn>, string | undefined>();

export async function stopLeftovers(): Promise<number> {
  const left = [...live];
  live.clear();
  for (const [proc, dir] of left) {
    proc.kill("SIGKILL");
    await proc.exited;
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
  return left.length;
}

export async function startKbqa(o: StartOptions = {}): Promise<Kbqa> {
  const dataDir = o.dataDir ?? mkdtempSync(join(tmpdir(), "kbqa-test-"));
  const modelsDir = o.modelsDir ?? join(dataDir, "models-empty");
  mkdirSync(modelsDir, { recursive: true });
  const common = ["--data", dataDir, "--models", modelsDir];
  const proc = Bun.spawn(["bun", CLI, "serve", "--port", "0", ...common, ...(o.flags ?? [])], {
    cwd: ROOT,
    env: { ...process.env, ...o.env },
    stdout: "pipe",
    stderr: "pipe",
  });
  let errText = "";
  void (async () => {
    const dec = new TextDecoder();
    for await (const c of proc.stderr as ReadableStream<Uint8Array>) errText += dec.decode(c);
  })();
  live.set(proc, o.dataDir || o.keepData ? undefined : dataDir);
  let url: string;
  try {
    url = await readListeningLine(proc, () => errText);
  } catch (e) {
    proc.kill("SIGKILL");
    await proc.exited;
    live.delete(proc);
    if (!o.dataDir && !o.keepData) rmSync(dataDir, { recursive: true, force: true });
    throw e;
  }
  const request = async <T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResult<T>> => {
    const init: RequestInit = { method, headers: { ...headers } };
    if (body !== undefined) {
      init.body = typeof body === "string" ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)["content-type"] ??= "application/json";
    }
    const r = await fetch(url + path, init);
    const text = await r.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {}
    return { status: r.status, body: parsed as T, headers: r.headers };
  };
  let stopped: Promise<number> | undefined;
  const k: Kbqa = {
    url,
    dataDir,
    modelsDir,
    proc,
    stderr: () => errText,
    cli: (args) => runCli([...args, ...common]),
    request,
    async org(name = "org-" + crypto.randomUUID().slice(0, 8)) {
      const made = await runCli(["org", "create", name, ...common]);
      if (made.code !== 0) throw new Error(`org create failed: ${made.stderr}`);
      const { id: orgId } = JSON.parse(made.stdout);
      const { privateKey, pem } = await sharedKeyPair();
      const pemFile = join(dataDir, `${orgId}.pem`);
      writeFileSync(pemFile, pem);
      const added = await runCli(["key", "add", "--org", orgId, "--public-key", pemFile, ...common]);
      if (added.code !== 0) throw new Error(`key add failed: ${added.stderr}`);
      const { kid } = JSON.parse(added.stdout);
      const jwt = (claims: Record<string, unknown> = {}, opts: { sub?: string; expSeconds?: number } = {}) =>
        new SignJWT(claims)
          .setProtectedHeader({ alg: "RS256", kid })
          .setSubject(opts.sub ?? "user-1")
          .setIssuedAt()
          .setExpirationTime(Math.floor(Date.now() / 1000) + (opts.expSeconds ?? 600))
          .sign(privateKey);
      let cached: string | undefined;
      return {
        orgId,
        kid,
        privateKey,
        jwt,
        async api(method, path, body, headers) {
          cached ??= await jwt();
          return request(method, path, body, headers ?? { authorization: `Bearer ${cached}` });
        },
      };
    },
    stop(signal = "SIGTERM") {
      stopped ??= (async () => {
        proc.kill(signal);
        const code = await proc.exited;
        live.delete(proc);
        if (!o.keepData && !o.dataDir) rmSync(dataDir, { recursive: true, force: true });
        return code;
      })();
      return stopped;
    },
    async [Symbol.asyncDispose]() {
      await k.stop();
    },
  };
  return k;
}

export async function readListeningLine(proc: ReturnType<typeof Bun.spawn>, err: () => string): Promise<string> {
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
  const dec = new TextDecoder();
  let buf = "";
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`server exited before listening:\n${err()}`);
    buf += dec.decode(value);
    const m = /kbqa listening on (http:\/\/\S+)\n/.exec(buf);
    if (m) {
      reader.releaseLock();
      return m[1]!;
    }
  }
  throw new Error(`server did not listen within 30 s:\n${err()}`);
}

/** Polls fn until it returns a truthy value or the deadline passes. Never sleeps blindly. */
export async function waitFor<T>(fn: () => Promise<T> | T, what: string, timeoutMs = 30_000, everyMs = 25): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await fn();
    if (last) return last as NonNullable<T>;
    await Bun.sleep(everyMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${JSON.stringify(last)})`);
}

export function tempDir(prefix = "kbqa-tmp-"): { path: string } & Disposable {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, [Symbol.dispose]: () => rmSync(path, { recursive: true, force: true }) };
}
