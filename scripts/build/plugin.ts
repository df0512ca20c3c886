// Bundler plugin for the compiled executable: routes every native addon load through
// src/runtime/native-loader.ts and keeps packages we do not use (sharp, other platforms' binaries)
// out of the bundle. Each patch asserts that its anchor text exists, so a dependency upgrade that
// moves the code fails the build instead of producing an executable that breaks at run time.
import type { BunPlugin } from "bun";
import { LAZY_PACKAGES } from "./lazy.ts";
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";

interface Patch { file: RegExp; find: string; replace: string }


function patchesFor(root: string, llamaVersion: string): Patch[] {
  const llamaRelease = readFileSync(join(root, "node_modules", "node-llama-cpp", "llama", "binariesGithubRelease.json"), "utf8");
  const loader = (group: string, file: string) => `require("kbqa-native-loader").nativeAddon(${JSON.stringify(group)}, ${JSON.stringify(file)})`;
  return [
    { file: /@lancedb\/lancedb\/dist\/native\.js$/, find: "nativeBinding = requireNative();", replace: `nativeBinding = ${loader("lancedb", "lancedb.node")};` },
    { file: /@napi-rs\/canvas\/js-binding\.js$/, find: "nativeBinding = requireNative()", replace: `nativeBinding = ${loader("canvas", "skia.node")}` },
    {
      file: /onnxruntime-node\/dist\/binding\.js$/,
      find: "require(`../bin/napi-v6/${process.platform}/${process.arch}/onnxruntime_binding.node`)",
      replace: loader("onnxruntime", "onnxruntime_binding.node"),
    },
    // transformers.js reaches onnxruntime-node through createRequire, which the bundler cannot follow.
    { file: /@huggingface\/transformers\/dist\/transformers\.node\.mjs$/, find: 'requireFromHere("onnxruntime-node")', replace: 'require("onnxruntime-node")' },
    // It reads its own package.json from disk to compare with the binaries package's version.
    {
      file: /node-llama-cpp\/dist\/utils\/getModuleVersion\.js$/,
      find: "const packageJson = await fs.readJson(",
      replace: `return (moduleVersion = ${JSON.stringify(llamaVersion)});\n    const packageJson = await fs.readJson(`,
    },
    // Read at import time from the package folder, which does not exist in the executable.
    // (also a top-level await, which bytecode compilation cannot take).
    {
      file: /node-llama-cpp\/dist\/bindings\/utils\/binariesGithubRelease\.js$/,
      find: "export const builtinLlamaCppRelease = await getBinariesGithubRelease();",
      replace: `export const builtinLlamaCppRelease = ${JSON.stringify(JSON.parse(llamaRelease).release)};`,
    },
    // Bundled, it cannot fork itself to test the binary and says so on every start; the binary is
    // the one built for this target, so the test is skipped quietly.
    {
      file: /node-llama-cpp\/dist\/bindings\/utils\/testBindingBinary\.js$/,
      find: "if (!detectedFileName.startsWith(expectedFileName)) {",
      replace: "if (!detectedFileName.startsWith(expectedFileName)) return true;\n    if (false) {",
    },
  ];
}

const applied = new Set<string>();

/** Patches whose module was never bundled, by file pattern; call after every build of a target. */
export function unappliedPatches(root: string): string[] {
  return patchesFor(root, "").map((p) => p.file.source).filter((f) => !applied.has(f));
}

/** stage: folder for generated shim modules; manifest: the generated native manifest module. */
export function kbqaPlugin(opts: { root: string; stage: string; manifest: string; llamaPackage: string; llamaVersion: string; lazyPaths?: string }): BunPlugin {
  const shims = join(opts.stage, "shims");
  mkdirSync(shims, { recursive: true });
  const write = (name: string, text: string) => {
    const p = join(shims, name);
    writeFileSync(p, text);
    return p;
  };
  const empty = write("absent.cjs", "// Not part of the kbqa executable (another platform's binaries).\nmodule.exports = {};\n");
  const sharp = write(
    "sharp.mjs",
    "// transformers.js imports sharp for image pipelines only; kbqa runs text feature extraction.\nexport default function sharp() {\n  throw new Error(\"image processing (sharp) is not included in the kbqa executable\");\n}\n",
  );
  const llamaBins = write(
    "llama-bins.mjs",
    `import { nativeGroupDir } from "kbqa-native-loader";\nexport function getBinsDir() {\n  return { binsDir: nativeGroupDir("llama"), packageVersion: ${JSON.stringify(opts.llamaVersion)} };\n}\n`,
  );
  const loader = join(opts.root, "src", "runtime", "native-loader.ts");
  const patches = patchesFor(opts.root, opts.llamaVersion);
  return {
    name: "kbqa-compile",
    setup(build) {
      build.onResolve({ filter: /^kbqa-native-loader$/ }, () => ({ path: loader }));
      build.onResolve({ filter: /^kbqa-native-manifest$/ }, () => ({ path: opts.manifest }));
      build.onResolve({ filter: /^sharp$/ }, () => ({ path: sharp }));
      build.onResolve({ filter: /^@node-llama-cpp\// }, (a) => ({ path: a.path === opts.llamaPackage ? llamaBins : empty }));
      // napi-rs loaders name every platform's package and file; only our loader provides addons.
      build.onResolve({ filter: /^@lancedb\/lancedb-|^@napi-rs\/canvas-|^@reflink\/reflink-|\.node$/ }, (a) =>
        a.importer.includes("node_modules") ? { path: empty } : undefined,
      );
      // With lazy bundles (scripts/build/lazy.ts), our import("pkg") sites load the embedded bundle.
      const lazyPaths = opts.lazyPaths;
      if (lazyPaths) {
        const srcDir = join(opts.root, "src") + "/";
        const sites = new RegExp(`(?<!typeof\\s*)\\bimport\\(\\s*"(${Object.keys(LAZY_PACKAGES).map((p) => p.replace(/[/.]/g, "\\$&")).join("|")})"\\s*\\)`, "g");
        build.onResolve({ filter: /^kbqa-lazy-paths$/ }, () => ({ path: lazyPaths }));
        build.onLoad({ filter: /\.ts$/ }, (a) => {
          if (!a.path.startsWith(srcDir)) return undefined;
          const text = readFileSync(a.path, "utf8");
          if (text.search(sites) < 0) return undefined;
          const contents = `import { lazyModulePath as __kbqaLazy } from "kbqa-lazy-paths";\n${text.replace(sites, (_m, pkg) => `import(__kbqaLazy(${JSON.stringify(pkg)}))`)}`;
          return { contents, loader: "ts" };
        });
        build.onResolve({ filter: new RegExp(`^(${Object.keys(LAZY_PACKAGES).map((p) => p.replace(/[/.]/g, "\\$&")).join("|")})$`) }, (a) => {
          if (a.importer.startsWith(srcDir)) throw new Error(`${a.importer} imports ${a.path} statically; only import() keeps it out of the main bundle`);
          return undefined;
        });
      }
      build.onLoad({ filter: /node_modules\/.*\.(m?js|cjs)$/ }, (a) => {
        const hits = patches.filter((p) => p.file.test(a.path));
        if (!hits.length) return undefined;
        let text = readFileSync(a.path, "utf8");
        for (const p of hits) {
          if (!text.includes(p.find)) throw new Error(`kbqa build: anchor not found in ${a.path}: ${p.find}`);
          text = text.replace(p.find, p.replace);
          applied.add(p.file.source);
        }
        return { contents: text, loader: "js" };
      });
    },
  };
}
