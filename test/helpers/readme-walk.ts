/**
 * The README's getting-started blocks as one bash script, changed only where the README itself
 * says to change them: the `API=` line for another address, and (for the executable alone) the
 * substitutions "The executable alone, without Bun" lists. Used by
 * test/foundation/readme-walkthrough.test.ts and test/executable/readme-walkthrough-alone.test.ts.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./server.ts";

/** The ```sh blocks of each `## ` section, in order. */
export function readmeBlocks(readme = readFileSync(join(ROOT, "README.md"), "utf8")): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let section = "";
  let block: string[] | undefined;
  for (const line of readme.split("\n")) {
    if (block) {
      if (line.startsWith("```")) {
        out.get(section)!.push(block.join("\n"));
        block = undefined;
      } else block.push(line);
    } else if (line.startsWith("## ")) {
      section = line.slice(3).trim();
      out.set(section, []);
    } else if (line === "```sh") block = [];
  }
  return out;
}

function blocksOf(blocks: Map<string, string[]>, section: string, count: number): string[] {
  const found = blocks.get(section);
  if (!found || found.length < count) throw new Error(`README: section "${section}" lost its shell block(s)`);
  return found.slice(0, count);
}

const FIRST_API = "API=http://127.0.0.1:8080";

/** The first-steps block with its address replaced, or throws when the README changed shape. */
function firstSteps(blocks: Map<string, string[]>, api: string): string {
  const [first] = blocksOf(blocks, "First steps with curl", 1);
  if (!first!.startsWith(FIRST_API + "\n")) throw new Error(`README: the first block no longer starts with ${FIRST_API}`);
  return first!.replace(FIRST_API, `API=${api}`);
}

/** First steps to the widget token, in the order a newcomer pastes them. */
export function walkthrough(api: string, blocks = readmeBlocks()): string {
  const rest: [string, number][] = [
    ["Uploading a document", 1],
    ["Asking questions", 2],
    ["Sessions", 1],
    ["Agents", 1],
    ["Usage reports", 1],
    ["Widget backend (deprecated, not in the OpenAPI document)", 1],
  ];
  return [firstSteps(blocks, api), ...rest.flatMap(([s, n]) => blocksOf(blocks, s, n))].join("\n");
}

/** The same, as "The executable alone, without Bun" says to run it: jq's get, ./kbqa, an openssl JWT. */
export function walkthroughAlone(api: string, blocks = readmeBlocks()): string {
  const [alone] = blocksOf(blocks, "Single executable", 1);
  const marker = "# step 2, instead of the mint-jwt line:";
  const cut = alone!.split("\n").findIndex((l) => l === marker);
  if (cut < 0) throw new Error(`README: the executable-alone block lost "${marker}"`);
  const lines = alone!.split("\n");
  const helpers = lines.slice(0, cut).join("\n");
  const jwt = lines.slice(cut + 1).join("\n");
  const steps = firstSteps(blocks, api)
    .split("\n")
    .map((l) => (l.startsWith("get() {") ? helpers : l.startsWith("JWT=$(bun scripts/mint-jwt.ts") ? jwt : l.replaceAll("bun run --silent kbqa", "kbqa")))
    .join("\n");
  const all = walkthrough(api, blocks);
  return steps + all.slice(firstSteps(blocks, api).length);
}

/** Runs a script in bash -e in `cwd`; the output, and the server's log on a failure. */
export async function runWalk(script: string, cwd: string, env: Record<string, string>, serverLog: () => string) {
  const p = Bun.spawn(["bash", "-c", `set -e\n${script}\n`], { cwd, env, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (code !== 0) console.error(`README blocks exited ${code}\nstdout:\n${stdout}\nstderr:\n${stderr}\nserver:\n${serverLog()}`);
  return { code, stdout, stderr };
}
