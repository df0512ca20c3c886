/**
 * A bare Bun.serve storing each PUT body one way, for bench-upload-floor.ts: no signature, grant,
 * hash or key directory, so it shows what a storage method costs and nothing else.
 * MODE (environment): bare (read and drop), whole (body read whole, write, fsync), bunwrite
 * (Bun.write of the request to a file, then fsync), dsync (streamed, each chunk written with
 * O_DSYNC), writeback (streamed, writeback of each chunk started with sync_file_range, fdatasync
 * at the end), raw (no Bun.serve: a TCP listener that reads the request head itself and writes
 * each segment the moment the socket delivers it, writeback started at once, fdatasync at the
 * end; Content-Length bodies only, one request per connection at a time: a floor, not a server),
 * odirect (body read whole, written with O_DIRECT as the route writes it, fsync).
 * Every durable mode writes a temporary file and renames it, then fsyncs DIR.
 * Prints its port on stdout.
 */
import fs from "node:fs";
import { promisify } from "node:util";
import { dlopen, FFIType } from "bun:ffi";
import { writeODirectSync } from "./upload-refs.ts";

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
  } else if (mode === "odirect") {
    const b = await r.bytes();
    const { O_WRONLY, O_CREAT, O_TRUNC, O_DIRECT } = fs.constants;
    const fd = fs.openSync(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0o600);
    writeODirectSync(fd, b);
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

/** MODE=raw: what is left when Bun.serve's body delivery (three chunks, the first 0.6 ms in) is taken away. */
function rawServer(): number {
  type Conn = { head: Buffer | null; left: number; fd: number; off: number; name: string };
  const writeback = (fd: number, off: number, len: number) => libc.symbols.sync_file_range(fd, off, len, SYNC_FILE_RANGE_WRITE);
  const listener = Bun.listen<Conn>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(s) {
        s.data = { head: Buffer.alloc(0), left: 0, fd: -1, off: 0, name: "" };
      },
      data(s, chunk) {
        const c = s.data;
        let body: Uint8Array = chunk;
        if (c.head) {
          const buf = Buffer.concat([c.head, chunk]);
          const end = buf.indexOf("\r\n\r\n");
          if (end < 0) return void (c.head = buf);
          c.left = Number(/content-length:\s*(\d+)/i.exec(buf.subarray(0, end).toString("latin1"))?.[1] ?? 0);
          c.head = null;
          c.name = String(n++);
          c.fd = fs.openSync(`${dir}/${c.name}.tmp`, "w", 0o600);
          c.off = 0;
          body = buf.subarray(end + 4);
        }
        if (body.byteLength) {
          writeAll(c.fd, body);
          writeback(c.fd, c.off, body.byteLength);
          c.off += body.byteLength;
          c.left -= body.byteLength;
        }
        if (c.left > 0) return;
        const { fd, name } = c;
        c.head = Buffer.alloc(0);
        fdatasync(fd).then(() => {
          fs.closeSync(fd);
          publish(`${dir}/${name}.tmp`, name);
          s.write("HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n");
        });
      },
    },
  });
  return listener.port;
}

function bunServer(): number {
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    maxRequestBodySize: 64 << 20,
    async fetch(r) {
      await store(r);
      return new Response(null);
    },
  });
  return server.port!;
}

console.log(mode === "raw" ? rawServer() : bunServer());
