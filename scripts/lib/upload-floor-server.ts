/**
 * A bare Bun.serve storing each PUT body one way, for bench-upload-floor.ts: no signature, grant,
 * hash or key directory, so it shows what a storage method costs and nothing else.
 * MODE (environment): bare (read and drop), whole (body read whole, write, fsync), bunwrite
 * (Bun.write of the request to a file, then fsync), dsync (streamed, each chunk written with
 * O_DSYNC), writeback (streamed, writeback of each chunk started with sync_file_range, fdatasync
 * at the end). Every durable mode writes a temporary file and renames it, then fsyncs DIR.
 * Prints its port on stdout.
 */
import fs from "node:fs";
import { promisify } from "node:util";
import { dlopen, FFIType } from "bun:ffi";

const fsync = promisify(fs.fsync);
const fdatasync = promisify(fs.fdatasync);
const SYNC_FILE_RANGE_WRITE = 2;
const libc = dlopen("libc.so.6", { sync_file_range: { args: [FFIType.i32, FFIType.i64, FFIType.i64, FFIType.u32], returns: FFIType.i32 } });
const dir = process.env.DIR ?? "";
const mode = process.env.MODE ?? "bare";
let n = 0;

function writeAll(fd: number, b: Uint8Array) {
  for (let o = 0; o < b.byteLength; ) o += fs.writeSync(fd, b, o);
}

function publish(tmp: string, name: string) {
  fs.renameSync(tmp, `${dir}/${name}`);
  const d = fs.openSync(dir, "r");
  fs.fsyncSync(d);
  fs.closeSync(d);
}

async function store(r: Request): Promise<void> {
  const name = String(n++);
  const tmp = `${dir}/${name}.tmp`;
  if (mode === "bare") {
    await r.bytes();
    return;
  }
  if (mode === "whole") {
    const b = await r.bytes();
    const fd = fs.openSync(tmp, "w", 0o600);
    writeAll(fd, b);
    await fsync(fd);
    fs.closeSync(fd);
  } else if (mode === "bunwrite") {
    // Bun.write takes a Request at run time (its body is written); the types only list Response.
    await Bun.write(tmp, r as unknown as Response);
    const fd = fs.openSync(tmp, "r");
    await fsync(fd);
    fs.closeSync(fd);
  } else {
    const { O_WRONLY, O_CREAT, O_TRUNC, O_DSYNC } = fs.constants;
    const fd = fs.openSync(tmp, mode === "dsync" ? O_WRONLY | O_CREAT | O_TRUNC | O_DSYNC : "w", 0o600);
    let off = 0;
    for await (const c of r.body!) {
      writeAll(fd, c);
      if (mode === "writeback") libc.symbols.sync_file_range(fd, off, c.byteLength, SYNC_FILE_RANGE_WRITE);
      off += c.byteLength;
    }
    if (mode === "writeback") await fdatasync(fd);
    fs.closeSync(fd);
  }
  publish(tmp, name);
}

const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  maxRequestBodySize: 64 << 20,
  async fetch(r) {
    await store(r);
    return new Response(null);
  },
});
console.log(server.port);
