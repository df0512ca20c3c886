// Packages the server reaches only through import() (llama.cpp bindings, transformers.js with ONNX
// Runtime) are bundled on their own and embedded as files: a single-file bundle would make every
// process (each ingestion worker, `kbqa --help`) parse ~3 MB more JavaScript at start (~30% of it).
// Our code's `import("node-llama-cpp")` becomes `import(<embedded path>)` (see plugin.ts).
import type { BunPlugin } from "bun";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const LAZY_PACKAGES: Record<string, string> = {
  "node-llama-cpp": "lazy-llama",
  "@huggingface/transformers": "lazy-transformers",
};

/** Bundles each lazy package into <stage>/lazy/<name>.js and writes the module that embeds them. */
export async function buildLazyBundles(stage: string, plugin: BunPlugin, minify: Bun.BuildConfig["minify"]): Promise<string> {
  const dir = join(stage, "lazy-src");
  mkdirSync(dir, { recursive: true });
  const entries = Object.entries(LAZY_PACKAGES).map(([pkg, name]) => {
    const file = join(dir, `${name}.ts`);
    writeFileSync(file, `export * from ${JSON.stringify(pkg)};\n`);
    return file;
  });
  const out = join(stage, "lazy");
  const r = await Bun.build({ entrypoints: entries, outdir: out, target: "bun", format: "esm", minify, plugins: [plugin], throw: false });
  if (!r.success) throw new AggregateError(r.logs, "bundling the lazy packages failed");
  const extra = r.outputs.filter((o) => !Object.values(LAZY_PACKAGES).some((n) => o.path.endsWith(`/${n}.js`)));
  // An asset next to a lazy bundle would not be found once the bundle is embedded.
  if (extra.length) throw new Error(`lazy bundles produced unexpected files: ${extra.map((o) => o.path).join(", ")}`);
  const paths = join(stage, "lazy-paths.ts");
  const names = Object.entries(LAZY_PACKAGES);
  writeFileSync(
    paths,
    names.map(([, n], i) => `import p${i} from ${JSON.stringify(join(out, `${n}.js`))} with { type: "file" };`).join("\n") +
      `\nconst PATHS: Record<string, string> = { ${names.map(([pkg], i) => `${JSON.stringify(pkg)}: p${i}`).join(", ")} };\n` +
      `export const lazyModulePath = (pkg: string): string => PATHS[pkg]!;\n`,
  );
  return paths;
}
