// Which native files each target embeds, and their staging: stripped of symbols (LanceDB ships
// ~35 MB of them) and zstd-compressed. The result is a generated manifest module the executable
// imports; src/runtime/native.ts writes the files to disk on first use.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, join, relative } from "node:path";

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

/**
 * Writes <stage>/<group>/<name>.zst for every source plus <stage>/manifest.ts, whose imports embed
 * the compressed files in the executable. Returns the manifest path and total sizes.
 */
export async function stageNatives(sources: NativeSource[], stage: string, level = 3) {
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  const hash = createHash("sha256");
  const entries: { group: string; name: string; file: string; size: number }[] = [];
  let raw = 0;
  let packed = 0;
  for (const s of sources) {
    const bytes = await stripped(s.from, stage);
    const file = join(stage, s.group, `${s.name}.zst`);
    mkdirSync(join(file, ".."), { recursive: true });
    const z = Bun.zstdCompressSync(bytes, { level });
    writeFileSync(file, z);
    hash.update(`${s.group}/${s.name}\0`).update(bytes);
    entries.push({ group: s.group, name: s.name, file, size: bytes.length });
    raw += bytes.length;
    packed += z.length;
  }
  const id = hash.digest("hex").slice(0, 16);
  const imports = entries.map((e, i) => `import f${i} from ${JSON.stringify("./" + relative(stage, e.file))} with { type: "file" };`);
  const groups: Record<string, string[]> = {};
  entries.forEach((e, i) => (groups[e.group] ??= []).push(`{ name: ${JSON.stringify(e.name)}, embedded: f${i}, size: ${e.size} }`));
  const body = Object.entries(groups).map(([g, files]) => `    ${JSON.stringify(g)}: [\n      ${files.join(",\n      ")},\n    ]`);
  const manifest = join(stage, "manifest.ts");
  writeFileSync(
    manifest,
    `// Generated by scripts/build.ts — do not edit.\n${imports.join("\n")}\n\nexport const MANIFEST = {\n  id: ${JSON.stringify(id)},\n  groups: {\n${body.join(",\n")},\n  },\n};\n`,
  );
  return { manifest, id, raw, packed, files: entries.length };
}
