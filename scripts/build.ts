// `bun run build` → dist/kbqa: one executable with the whole service (see README "Single executable").
//   bun scripts/build.ts [--target bun-linux-x64] [--outfile dist/kbqa] [--no-natives]
// --no-natives compiles only the JavaScript (for checking other targets whose native packages
// are not installed here); such an executable cannot load LanceDB, ONNX, llama.cpp or canvas.
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { nativeSources, stageNatives } from "./build/natives.ts";
import { kbqaPlugin } from "./build/plugin.ts";

const root = resolve(import.meta.dir, "..");
const argv = process.argv.slice(2);
const flag = (name: string, def: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] ? argv[i + 1]! : def;
};
const hostTarget = `bun-${process.platform}-${process.arch}`;
const target = flag("target", hostTarget);
const outfile = resolve(root, flag("outfile", target === "bun-linux-x64" ? "dist/kbqa" : `dist/kbqa-${target.slice(4)}`));
const withNatives = !argv.includes("--no-natives");
const stage = join(root, "dist", ".stage", target);

const t0 = performance.now();
const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
let manifest = join(stage, "manifest.ts");
if (withNatives) {
  const staged = await stageNatives(nativeSources(root, target), stage);
  manifest = staged.manifest;
  console.error(`natives: ${staged.files} files, ${mb(staged.raw)} stripped → ${mb(staged.packed)} compressed (id ${staged.id})`);
} else {
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  await Bun.write(manifest, `export const MANIFEST = { id: "none", groups: {} };\n`);
}

const llamaTarget = target.replace(/^bun-/, "").replace(/^darwin-arm64$/, "mac-arm64-metal").replace(/^darwin-/, "mac-");
const llamaVersion = JSON.parse(readFileSync(join(root, "node_modules", "node-llama-cpp", "package.json"), "utf8")).version as string;

mkdirSync(dirname(outfile), { recursive: true });
const result = await Bun.build({
  entrypoints: [join(root, "src", "cli.ts")],
  compile: { target: target as Bun.Build.Target, outfile, autoloadDotenv: false, autoloadBunfig: false },
  minify: { whitespace: true, syntax: true, identifiers: false },
  plugins: [kbqaPlugin({ root, stage, manifest, llamaPackage: `@node-llama-cpp/${llamaTarget}`, llamaVersion })],
  throw: false,
});
if (!result.success) {
  for (const l of result.logs) console.error(l);
  process.exit(1);
}
if (!existsSync(outfile)) throw new Error(`build reported success but ${outfile} is missing`);
console.error(`built ${outfile} (${target}, ${mb(statSync(outfile).size)}) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
