// Which native files each target carries, stripped of symbols (LanceDB ships ~35 MB of them), and
// how they are laid out: a zstd-compressed pack inside the executable (Linux), or a lib/ folder
// next to it (fallback). src/runtime/native.ts reads them back.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";

export interface NativeSource { group: string; name: string; from: string }

/** node_modules paths per Bun target; only the installed platform packages can be embedded. */
export function nativeSources(root: string, target: string): NativeSource[] {
  const nm = join(root, "node_modules");
  const platform: Record<string, { lance: string; canvas: string; ort: string; llama: string }> = {
    "bun-linux-x64": {
      lance: "@lancedb/lancedb-linux-x64-gnu/lancedb.linux-x64-gnu.node",
      canvas: "@napi-rs/canvas-linux-x64-gnu/skia.linux-x64-gnu.node",
      ort: "onnxruntime-node/bin/napi-v6/linux/x64",
      llama: "@node-llama-cpp/linux-x64/bins/linux-x64",
    },
    "bun-linux-arm64": {
      lance: "@lancedb/lancedb-linux-arm64-gnu/lancedb.linux-arm64-gnu.node",
      canvas: "@napi-rs/canvas-linux-arm64-gnu/skia.linux-arm64-gnu.node",
      ort: "onnxruntime-node/bin/napi-v6/linux/arm64",
      llama: "@node-llama-cpp/linux-arm64/bins/linux-arm64",
    },
    "bun-darwin-arm64": {
      lance: "@lancedb/lancedb-darwin-arm64/lancedb.darwin-arm64.node",
      canvas: "@napi-rs/canvas-darwin-arm64/skia.darwin-arm64.node",
      ort: "onnxruntime-node/bin/napi-v6/darwin/arm64",
      llama: "@node-llama-cpp/mac-arm64-metal/bins/mac-arm64-metal",
    },
    "bun-darwin-x64": {
      lance: "@lancedb/lancedb-darwin-x64/lancedb.darwin-x64.node",
      canvas: "@napi-rs/canvas-darwin-x64/skia.darwin-x64.node",
      ort: "onnxruntime-node/bin/napi-v6/darwin/x64",
      llama: "@node-llama-cpp/mac-x64/bins/mac-x64",
    },
  };
  const p = platform[target];
  if (!p) throw new Error(`no native file table for target ${target}`);
  const missing = [p.lance, p.canvas, p.ort, p.llama].filter((f) => !existsSync(join(nm, f)));
  if (missing.length) throw new Error(`native files for ${target} are not installed: ${missing.join(", ")}`);
  const dirFiles = (dir: string) => readdirSync(join(nm, dir)).filter((f) => statSync(join(nm, dir, f)).isFile());
  const llamaFolder = basename(p.llama);
  return [
    { group: "lancedb", name: "lancedb.node", from: join(nm, p.lance) },
    { group: "canvas", name: "skia.node", from: join(nm, p.canvas) },
    ...dirFiles(p.ort).map((f) => ({ group: "onnxruntime", name: f, from: join(nm, p.ort, f) })),
    // node-llama-cpp looks for <binsDir>/<build folder name>/llama-addon.node; ggml then dlopens the
    // best libggml-cpu-<cpu>.so of that folder for the machine it runs on, so all variants ship.
    ...dirFiles(p.llama).map((f) => ({ group: "llama", name: `${llamaFolder}/${f}`, from: join(nm, p.llama, f) })),
  ];
}

const isElf = (b: Uint8Array) => b[0] === 0x7f && b[1] === 0x45 && b[2] === 0x4c && b[3] === 0x46;

/** Strips debug symbols from ELF files (kept as-is when `strip` is missing); other files unchanged. */
async function stripped(from: string, work: string): Promise<Uint8Array> {
  const raw = readFileSync(from);
  if (!isElf(raw) || !Bun.which("strip")) return raw;
  const out = join(work, "strip.tmp");
  const p = Bun.spawnSync(["strip", "--strip-unneeded", "-o", out, from], { stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`strip ${from}: ${p.stderr.toString()}`);
  const b = readFileSync(out);
  rmSync(out);
  return b;
}

export const PACK_MAGIC = "KBQAPAK1";

export interface Staged { id: string; raw: number; packed: number; files: number }

/**
 * The natives pack: "KBQAPAK1", u64 LE index length, index JSON {id, files: [{group, name, offset,
 * length, size}]} (offsets from the end of the index), then each file zstd-compressed. scripts/build.ts
 * places it between the Bun runtime's ELF image and Bun's module payload (see spliceIntoExecutable).
 */
export async function buildPack(sources: NativeSource[], work: string, level = 3): Promise<Staged & { pack: Uint8Array }> {
  mkdirSync(work, { recursive: true });
  const hash = createHash("sha256");
  const blobs: Uint8Array[] = [];
  const files: { group: string; name: string; offset: number; length: number; size: number }[] = [];
  let offset = 0;
  let raw = 0;
  for (const s of sources) {
    const bytes = await stripped(s.from, work);
    const z = Bun.zstdCompressSync(bytes, { level });
    hash.update(`${s.group}/${s.name}\0`).update(bytes);
    files.push({ group: s.group, name: s.name, offset, length: z.length, size: bytes.length });
    blobs.push(z);
    offset += z.length;
    raw += bytes.length;
  }
  const id = hash.digest("hex").slice(0, 16);
  const index = new TextEncoder().encode(JSON.stringify({ id, files }));
  const head = new Uint8Array(16);
  head.set(new TextEncoder().encode(PACK_MAGIC));
  new DataView(head.buffer).setBigUint64(8, BigInt(index.length), true);
  const pack = Buffer.concat([head, index, ...blobs]);
  return { pack, id, raw, packed: pack.length, files: files.length };
}

/** Fallback layout: the stripped files, uncompressed, in <lib>/<group>/<name> next to the executable. */
export async function writeLib(sources: NativeSource[], lib: string, work: string): Promise<Staged> {
  rmSync(lib, { recursive: true, force: true });
  const hash = createHash("sha256");
  let raw = 0;
  for (const s of sources) {
    const bytes = await stripped(s.from, work);
    const file = join(lib, s.group, s.name);
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(file, bytes, { mode: 0o755 });
    hash.update(`${s.group}/${s.name}\0`).update(bytes);
    raw += bytes.length;
  }
  return { id: hash.digest("hex").slice(0, 16), raw, packed: raw, files: sources.length };
}

/** End of an ELF image: its section header table comes last. undefined for other formats. */
export function elfEnd(head: Uint8Array): number | undefined {
  if (head[0] !== 0x7f || head[1] !== 0x45 || head[2] !== 0x4c || head[3] !== 0x46 || head[4] !== 2 || head[5] !== 1) return undefined;
  const v = new DataView(head.buffer, head.byteOffset, 64);
  return Number(v.getBigUint64(0x28, true)) + v.getUint16(0x3a, true) * v.getUint16(0x3c, true);
}

/**
 * Inserts the pack after the runtime's ELF image. Bun finds its module payload from the end of the
 * file (the last 8 bytes hold the file size, updated here), and the ELF loader ignores bytes past
 * the image, so neither notices; the executable reads the pack back on first use of a native.
 */
export function spliceIntoExecutable(exe: Uint8Array, pack: Uint8Array): Uint8Array {
  const end = elfEnd(exe.subarray(0, 64));
  if (end === undefined || end >= exe.length) throw new Error("the compiled file is not an ELF image followed by Bun's payload");
  const out = Buffer.concat([exe.subarray(0, end), pack, exe.subarray(end)]);
  new DataView(out.buffer, out.byteOffset, out.length).setBigUint64(out.length - 8, BigInt(out.length), true);
  return out;
}
