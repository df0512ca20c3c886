// Native libraries of the compiled executable. Addons whose shared libraries are found through
// RUNPATH=$ORIGIN (onnxruntime, llama.cpp and its per-CPU ggml backends) must be real files on
// disk, and Bun keeps every file embedded in its module payload resident in memory (+100 MB per
// process, each ingestion worker included). So the build places a zstd-compressed pack of the
// natives between the runtime's ELF image and Bun's payload (see scripts/build/natives.ts), and a
// group is written once to a private folder named by the pack's content hash: later starts only
// stat it. The fallback layout ("lib") is a lib/ folder next to the executable, used as is.
import { accessSync, closeSync, constants, existsSync, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, readSync, renameSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";

export interface NativeManifest {
  /** Content hash of every native file; names the extraction folder. */
  id: string;
  source: "pack" | "lib";
}

interface PackFile { group: string; name: string; offset: number; length: number; size: number }
interface PackIndex { id: string; files: PackFile[]; dataStart: number }

export const PACK_MAGIC = "KBQAPAK1";

let rootOverride: string | undefined;

/** Where groups are extracted; the default is a private per-user folder in the temp directory. */
export function configureNativeDir(dir: string): void {
  rootOverride = dir;
}

/**
 * No folder the libraries could be loaded from: every candidate is on a file system mounted noexec
 * (hardened hosts mount /tmp, sometimes /home, so). dlopen then failed with "failed to map segment
 * from shared object" and a stack, naming neither the mount option nor a way out. cli.ts prints it
 * as one line.
 */
export class NativeDirUnusable extends Error {
  override name = "NativeDirUnusable"; // lazy bundles of the executable carry their own copy of this class
}

let chosenRoot: string | undefined;

/**
 * The user's cache folder (~/.cache/kbqa/runtime), else a per-user folder in the temp directory,
 * the first on a file system that lets programs run (see NativeDirUnusable).
 * Not /tmp first: on systems where /tmp is a tmpfs the ~280 MB of libraries would sit in RAM.
 */
function defaultRoot(): string {
  if (chosenRoot) return chosenRoot;
  const uid = typeof process.getuid === "function" ? process.getuid() : 0;
  const tried: string[] = [];
  try {
    const home = homedir();
    if (home && home !== "/") {
      const cache = join(home, ".cache", "kbqa", "runtime");
      mkdirSync(cache, { recursive: true, mode: 0o700 });
      accessSync(cache, constants.W_OK);
      if (allowsExec(cache)) return (chosenRoot = cache);
      tried.push(cache);
    }
  } catch {
    // read-only or missing home: fall through
  }
  const tmp = join(tmpdir(), `kbqa-runtime-${uid}`);
  ensurePrivateDir(tmp);
  if (allowsExec(tmp)) return (chosenRoot = tmp);
  tried.push(tmp);
  throw new NativeDirUnusable(
    `cannot load the native libraries: ${tried.join(" and ")} ${tried.length > 1 ? "are" : "is"} on a file system mounted noexec; ` +
      "set TMPDIR (or HOME) to a folder on a file system where programs may run",
  );
}

/**
 * Whether shared libraries can be loaded from files in `dir`. On a noexec mount the kernel refuses
 * X_OK for a regular file (faccessat), as it refuses the executable mapping dlopen needs.
 */
function allowsExec(dir: string): boolean {
  const probe = join(dir, `.exec-probe-${process.pid}`);
  try {
    writeFileSync(probe, "", { mode: 0o700 });
    accessSync(probe, constants.X_OK);
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { force: true });
  }
}

/** Extractions of other builds, untouched for an hour (not a version starting right now), are removed. */
function pruneOtherBuilds(root: string, keep: string): void {
  for (const name of readdirSync(root)) {
    if (name === keep || !/^[0-9a-f]{16}$/.test(name)) continue;
    try {
      if (Date.now() - lstatSync(join(root, name)).mtimeMs > 3_600_000) rmSync(join(root, name), { recursive: true, force: true });
    } catch {
      // another process pruned it first
    }
  }
}

/**
 * A shared folder such as /tmp must be ours and closed to others before we load code from it:
 * otherwise another local user could plant a library there.
 */
function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  const uid = typeof process.getuid === "function" ? process.getuid() : st.uid;
  const refuse = (why: string) =>
    new NativeDirUnusable(`cannot load the native libraries from ${dir}: ${why}; remove it, or set TMPDIR (or HOME) to a folder of your own`);
  if (!st.isDirectory() || st.isSymbolicLink()) throw refuse("it is not a directory");
  if (st.uid !== uid) throw refuse(`it belongs to another user (uid ${st.uid})`);
  if ((st.mode & 0o022) !== 0) throw refuse(`it is writable by other users (mode ${(st.mode & 0o777).toString(8)})`);
}

function readAt(fd: number, position: number, length: number): Uint8Array {
  const buf = new Uint8Array(length);
  for (let done = 0; done < length; ) {
    const n = readSync(fd, buf, done, length - done, position + done);
    if (n === 0) throw new Error("unexpected end of the executable while reading its natives pack");
    done += n;
  }
  return buf;
}

/** The pack index, found right after the ELF image of `exe` (its section header table ends it). */
export function readPackIndex(exe: string): PackIndex {
  const fd = openSync(exe, "r");
  try {
    const head = readAt(fd, 0, 64);
    if (head[0] !== 0x7f || head[1] !== 0x45 || head[2] !== 0x4c || head[3] !== 0x46 || head[4] !== 2 || head[5] !== 1) {
      throw new Error(`${exe} is not a 64-bit little-endian ELF file`);
    }
    const v = new DataView(head.buffer);
    const end = Number(v.getBigUint64(0x28, true)) + v.getUint16(0x3a, true) * v.getUint16(0x3c, true);
    const top = readAt(fd, end, 16);
    if (new TextDecoder().decode(top.subarray(0, 8)) !== PACK_MAGIC) throw new Error(`${exe} carries no natives pack`);
    const len = Number(new DataView(top.buffer).getBigUint64(8, true));
    const index = JSON.parse(new TextDecoder().decode(readAt(fd, end + 16, len))) as Omit<PackIndex, "dataStart">;
    return { ...index, dataStart: end + 16 + len };
  } finally {
    closeSync(fd);
  }
}

function complete(dir: string, files: { name: string; size: number }[]): boolean {
  if (!existsSync(join(dir, ".complete"))) return false;
  return files.every((f) => {
    try {
      return lstatSync(join(dir, f.name)).size === f.size;
    } catch {
      return false;
    }
  });
}

function writeFileDurably(target: string, bytes: Uint8Array): void {
  const fd = openSync(target, "w", 0o700);
  try {
    for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

const groupDirs = new Map<string, string>();

/** Folder holding the group's files, extracting them from the pack on first use (temp folder + rename). */
/** The folder groups are extracted into: configureNativeDir's, else defaultRoot's choice. */
export function nativeRoot(): string {
  return rootOverride ?? defaultRoot();
}

export function nativeGroupDir(manifest: NativeManifest, group: string, exe = process.execPath, root = nativeRoot()): string {
  const key = `${manifest.id}\0${root}\0${group}`;
  const known = groupDirs.get(key);
  if (known) return known;
  if (manifest.source === "lib") {
    const dir = join(dirname(exe), "lib", group);
    if (!existsSync(dir)) throw new Error(`native group "${group}" is missing: expected ${dir} next to the executable`);
    groupDirs.set(key, dir);
    return dir;
  }
  ensurePrivateDir(root);
  const base = join(root, manifest.id);
  if (!existsSync(base)) pruneOtherBuilds(root, manifest.id);
  mkdirSync(base, { recursive: true, mode: 0o700 });
  const dir = join(base, group);
  let index: PackIndex | undefined;
  const files = () => {
    index ??= readPackIndex(exe);
    if (index.id !== manifest.id) throw new Error(`natives pack ${index.id} does not match this build (${manifest.id})`);
    const f = index.files.filter((x) => x.group === group);
    if (!f.length) throw new Error(`native group "${group}" is not part of this executable`);
    return f;
  };
  // The folder's name is the content hash, so a complete folder needs no reading of the pack.
  if (!existsSync(join(dir, ".complete")) || !complete(dir, files())) {
    const tmp = join(base, `.${group}.${process.pid}.${Date.now()}`);
    rmSync(tmp, { recursive: true, force: true });
    const fd = openSync(exe, "r");
    try {
      for (const f of files()) {
        const target = join(tmp, f.name);
        mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
        const bytes = Bun.zstdDecompressSync(readAt(fd, index!.dataStart + f.offset, f.length));
        if (bytes.length !== f.size) throw new Error(`packed ${f.name} is damaged (${bytes.length} ≠ ${f.size} bytes)`);
        writeFileDurably(target, bytes);
      }
    } finally {
      closeSync(fd);
    }
    writeFileSync(join(tmp, ".complete"), manifest.id, { mode: 0o600 });
    try {
      // A damaged earlier extraction is replaced; a concurrent process that won the race is kept.
      if (existsSync(dir) && !complete(dir, files())) rmSync(dir, { recursive: true, force: true });
      renameSync(tmp, dir);
    } catch (e) {
      rmSync(tmp, { recursive: true, force: true });
      if (!complete(dir, files())) throw e;
    }
    Bun.gc(true); // the decompressed buffers (up to ~170 MB for LanceDB) are garbage now
  }
  groupDirs.set(key, dir);
  return dir;
}

/** Loads a Node-API addon from a native group. */
export function loadAddon(manifest: NativeManifest, group: string, file: string): any {
  const module = { exports: {} as any };
  process.dlopen(module, join(nativeGroupDir(manifest, group), file));
  return module.exports;
}
