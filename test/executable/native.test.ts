// The natives pack round trip without compiling: a synthetic ELF image, the pack spliced after it,
// a fake "Bun payload" ending in its size, then extraction into a private cache folder.
import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildPack, elfEnd, spliceIntoExecutable } from "../../scripts/build/natives.ts";
import { NativeDirUnusable, nativeGroupDir, readPackIndex } from "../../src/runtime/native.ts";
import { isCompiled, selfCommand, workerCommand } from "../../src/runtime/compiled.ts";

const dirs: string[] = [];
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), "kbqa-native-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** 64-byte ELF64 LE header whose section header table (3 × 64 bytes) ends the 448-byte image. */
function fakeElf(): Uint8Array {
  const b = new Uint8Array(448);
  b.set([0x7f, 0x45, 0x4c, 0x46, 2, 1]);
  const v = new DataView(b.buffer);
  v.setBigUint64(0x28, 256n, true);
  v.setUint16(0x3a, 64, true);
  v.setUint16(0x3c, 3, true);
  return b;
}

async function fakeExecutable(files: Record<string, string>) {
  const src = temp();
  const sources = Object.entries(files).map(([key, text]) => {
    const [group, ...name] = key.split("/");
    const from = join(src, key.replaceAll("/", "_"));
    writeFileSync(from, text);
    return { group: group!, name: name.join("/"), from };
  });
  const staged = await buildPack(sources, join(src, "work"));
  const payload = new Uint8Array(40).fill(7); // stands for Bun's payload; its last 8 bytes get the file size
  const exe = join(src, "kbqa");
  writeFileSync(exe, spliceIntoExecutable(Buffer.concat([fakeElf(), payload]), staged.pack));
  return { exe, id: staged.id, size: statSync(exe).size };
}

describe("natives pack", () => {
  test("splices after the ELF image, keeps the payload at the end and records the new size", async () => {
    const { exe, size } = await fakeExecutable({ "g/a.so": "alpha" });
    const bytes = readFileSync(exe);
    expect(elfEnd(bytes.subarray(0, 64))).toBe(448);
    expect(bytes.subarray(448, 456).toString()).toBe("KBQAPAK1");
    expect(Array.from(bytes.subarray(size - 40, size - 8))).toEqual(new Array(32).fill(7));
    expect(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(size - 8, true)).toBe(BigInt(size));
  });

  test("the index lists every file with its uncompressed size", async () => {
    const { exe, id } = await fakeExecutable({ "g/a.so": "alpha", "g/sub/b.node": "bravo!", "h/c": "" });
    const index = readPackIndex(exe);
    expect(index.id).toBe(id);
    expect(index.files.map(({ group, name, size }) => ({ group, name, size }))).toEqual([
      { group: "g", name: "a.so", size: 5 },
      { group: "g", name: "sub/b.node", size: 6 },
      { group: "h", name: "c", size: 0 },
    ]);
  });

  test("extracts a group once into <root>/<id>/<group>, private to the user", async () => {
    const { exe, id } = await fakeExecutable({ "g/a.so": "alpha", "g/sub/b.node": "bravo!", "h/c": "charlie" });
    const root = join(temp(), "cache");
    const dir = nativeGroupDir({ id, source: "pack" }, "g", exe, root);
    expect(dir).toBe(join(root, id, "g"));
    expect(readFileSync(join(dir, "a.so"), "utf8")).toBe("alpha");
    expect(readFileSync(join(dir, "sub/b.node"), "utf8")).toBe("bravo!");
    expect(existsSync(join(root, id, "h"))).toBe(false);
    expect(statSync(root).mode & 0o777).toBe(0o700);
  });

  test("a damaged extraction (wrong size) is replaced", async () => {
    const { exe, id } = await fakeExecutable({ "d/a.so": "alpha" });
    const root = join(temp(), "cache");
    mkdirSync(join(root, id, "d"), { recursive: true, mode: 0o700 });
    chmodSync(root, 0o700);
    writeFileSync(join(root, id, "d", "a.so"), "alp");
    writeFileSync(join(root, id, "d", ".complete"), id);
    expect(readFileSync(join(nativeGroupDir({ id, source: "pack" }, "d", exe, root), "a.so"), "utf8")).toBe("alpha");
  });

  test("a new build removes extractions of other builds untouched for an hour, keeps recent ones", async () => {
    const { exe, id } = await fakeExecutable({ "n/a.so": "alpha" });
    const root = join(temp(), "cache");
    mkdirSync(join(root, "00000000000000aa", "n"), { recursive: true });
    mkdirSync(join(root, "00000000000000bb", "n"), { recursive: true });
    mkdirSync(join(root, "not-a-build"));
    chmodSync(root, 0o700);
    const old = new Date(Date.now() - 2 * 3_600_000);
    utimesSync(join(root, "00000000000000aa"), old, old);
    utimesSync(join(root, "not-a-build"), old, old);
    nativeGroupDir({ id, source: "pack" }, "n", exe, root);
    expect(readdirSync(root).sort()).toEqual(["00000000000000bb", id, "not-a-build"].sort());
  });

  test("refuses a cache root other users can write to", async () => {
    const { exe, id } = await fakeExecutable({ "p/a.so": "alpha" });
    const root = join(temp(), "open");
    mkdirSync(root);
    chmodSync(root, 0o777);
    expect(() => nativeGroupDir({ id, source: "pack" }, "p", exe, root)).toThrow(/writable by other users/);
    // A NativeDirUnusable, which the CLI prints as one line (it printed a stack), with the way out.
    expect(() => nativeGroupDir({ id, source: "pack" }, "p", exe, root)).toThrow(NativeDirUnusable);
    expect(() => nativeGroupDir({ id, source: "pack" }, "p", exe, root)).toThrow(/remove it, or set TMPDIR \(or HOME\) to a folder of your own$/);
  });

  test.skipIf(process.getuid?.() !== 0)("refuses a cache root another user owns, as a NativeDirUnusable", async () => {
    const { exe, id } = await fakeExecutable({ "q/a.so": "alpha" });
    const root = join(temp(), "theirs");
    mkdirSync(root, { mode: 0o700 });
    chownSync(root, 65534, 65534);
    expect(() => nativeGroupDir({ id, source: "pack" }, "q", exe, root)).toThrow(
      new NativeDirUnusable(`cannot load the native libraries from ${root}: it belongs to another user (uid 65534); remove it, or set TMPDIR (or HOME) to a folder of your own`),
    );
  });

  test("an unknown group and a pack from another build are errors", async () => {
    const { exe, id } = await fakeExecutable({ "g/a.so": "alpha" });
    expect(() => nativeGroupDir({ id, source: "pack" }, "nope", exe, join(temp(), "c1"))).toThrow(/not part of this executable/);
    expect(() => nativeGroupDir({ id: "0000000000000000", source: "pack" }, "g", exe, join(temp(), "c2"))).toThrow(/does not match this build/);
  });

  test("lib layout: the group folder next to the executable, used as is", () => {
    const d = temp();
    mkdirSync(join(d, "lib", "onnxruntime"), { recursive: true });
    expect(nativeGroupDir({ id: "x", source: "lib" }, "onnxruntime", join(d, "kbqa"))).toBe(join(d, "lib", "onnxruntime"));
    expect(() => nativeGroupDir({ id: "x", source: "lib" }, "llama", join(d, "kbqa"))).toThrow(/missing/);
  });
});

describe("compiled-mode detection", () => {
  test("source checkout: not compiled; the worker runs as `bun <abs>/src/cli.ts worker`", () => {
    expect(isCompiled()).toBe(false);
    expect(isCompiled("/$bunfs/root/kbqa")).toBe(true);
    expect(workerCommand()).toEqual([process.execPath, join(import.meta.dir, "../../src/cli.ts"), "worker"]);
    expect(selfCommand("org", "list")).toEqual([process.execPath, join(import.meta.dir, "../../src/cli.ts"), "org", "list"]);
  });
});
