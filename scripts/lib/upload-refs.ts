// The references and setup shared by the upload benchmarks (bench-upload.ts, bench-upload-hot.ts).
import { ptr } from "bun:ffi";
import { closeSync, constants, fsyncSync, ftruncateSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { Kbqa } from "../../test/helpers/server.ts";
import { alignedBuffer, DIRECT_ALIGN } from "../../src/storage/write.ts";

/** A child Bun.serve that reads each request body and discards it: the HTTP floor of an upload, no disk. */
export function startBarePut(maxBodyBytes: number): Promise<{ port: number; stop(): void }> {
  return startChildPut(maxBodyBytes, "await r.bytes(); return new Response(null);");
}

/**
 * A child Bun.serve that stores each body the way the issue asks of the route and nothing else:
 * whole body read natively, temporary file, fsync, rename, fsync of the directory. No signature,
 * grant, hash or key directories: the floor of an atomic durable upload on this machine.
 */
export function startDurablePut(maxBodyBytes: number, dir: string): Promise<{ port: number; stop(): void }> {
  return startChildPut(
    maxBodyBytes,
    `const b = await r.bytes(); const i = n++; const tmp = dir + "/" + i + ".tmp";
    const fd = fs.openSync(tmp, "w", 0o600); for (let o = 0; o < b.byteLength; ) o += fs.writeSync(fd, b, o);
    await fsyncAsync(fd); fs.closeSync(fd); fs.renameSync(tmp, dir + "/" + i);
    const d = fs.openSync(dir, "r"); await fsyncAsync(d); fs.closeSync(d);
    return new Response(null);`,
    `const fs = require("node:fs"); const fsyncAsync = require("node:util").promisify(fs.fsync);
    const dir = ${JSON.stringify(dir)}; let n = 0;`,
  );
}

async function startChildPut(maxBodyBytes: number, handler: string, prelude = ""): Promise<{ port: number; stop(): void }> {
  const code = `${prelude}
  const s = Bun.serve({ port: 0, hostname: "127.0.0.1", maxRequestBodySize: ${maxBodyBytes}, async fetch(r) { ${handler} } });
  console.log(s.port);`;
  const proc = Bun.spawn(["bun", "-e", code], { stdout: "pipe", stderr: "inherit" });
  const port = Number(new TextDecoder().decode((await proc.stdout.getReader().read()).value).trim());
  if (!port) throw new Error("the reference server did not start");
  return { port, stop: () => proc.kill() };
}

export function writeAll(fd: number, b: Uint8Array) {
  for (let off = 0; off < b.byteLength; ) off += writeSync(fd, b, off);
}

export function fsyncDir(dir: string) {
  const fd = openSync(dir, "r");
  fsyncSync(fd);
  closeSync(fd);
}

/** The baseline: the bytes written to a new file with the durability the route gives (one write, fsync of the file and of its directory). */
export function directWrite(dir: string, name: string, body: Uint8Array) {
  const fd = openSync(join(dir, name), "w", 0o600);
  writeAll(fd, body);
  fsyncSync(fd);
  closeSync(fd);
  fsyncDir(dir);
}

let staging: Uint8Array | null = null;

/**
 * Writes a body at offset 0 of a file opened with O_DIRECT, as the route writes a declared body:
 * from page-aligned memory, the last partial block padded, the file then cut to size. The body is
 * copied into a reused aligned buffer when its own memory is not aligned or its size not a
 * multiple of the block (the route copies only the last block; the bench's bodies are 1 MiB).
 */
export function writeODirectSync(fd: number, body: Uint8Array) {
  const padded = Math.ceil(body.byteLength / DIRECT_ALIGN) * DIRECT_ALIGN;
  let src = body;
  if (ptr(body) % DIRECT_ALIGN !== 0 || padded !== body.byteLength) {
    if (!staging || staging.byteLength < padded) staging = alignedBuffer(padded);
    staging.set(body);
    staging.fill(0, body.byteLength, padded);
    src = staging.subarray(0, padded);
  }
  for (let off = 0; off < padded; ) off += writeSync(fd, src, off, padded - off, off);
  if (padded !== body.byteLength) ftruncateSync(fd, body.byteLength);
}

/** The direct write's durability with O_DIRECT: the bytes reach the disk without the page cache. */
export function directWriteODirect(dir: string, name: string, body: Uint8Array) {
  const fd = openSync(join(dir, name), constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_DIRECT, 0o600);
  writeODirectSync(fd, body);
  fsyncSync(fd);
  closeSync(fd);
  fsyncDir(dir);
}

/** An organization with a JWT and a corpus on the running server, for the benchmark's uploads. */
export async function benchCorpus(k: Kbqa, name: string): Promise<{ auth: Record<string, string>; corpusId: string }> {
  const org = await k.org(name);
  const jwt = await org.jwt({}, { expSeconds: 3600 });
  const auth = { authorization: `Bearer ${jwt}`, "content-type": "application/json" };
  const r = await fetch(`${k.url}/v1/corpus/`, { method: "POST", headers: auth, body: JSON.stringify({ name }) });
  return { auth, corpusId: ((await r.json()) as { id: string }).id };
}
