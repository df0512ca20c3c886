// "The executable alone, without Bun" in the README: dist/kbqa copied alone into an empty folder,
// served from there, and the getting-started blocks run with the substitutions that section lists
// (jq's get, ./kbqa, a JWT signed by openssl), by a bash whose PATH holds no bun. The section says
// every later block then works as written; this holds it to that.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { bareCopy, freshExecutable } from "../../scripts/build/exe.ts";
import { readListeningLine } from "../helpers/server.ts";
import { runWalk, walkthroughAlone } from "../helpers/readme-walk.ts";

const TOOLS = ["bash", "curl", "openssl", "jq", "grep", "seq", "sleep", "mkdir", "tr", "date", "cat"];
const missing = TOOLS.filter((t) => !Bun.which(t));

let work: string;
let server: ReturnType<typeof Bun.spawn>;
let log = "";
let run: { code: number; stdout: string; stderr: string };

beforeAll(async () => {
  if (missing.length) return;
  work = bareCopy((await freshExecutable()).path);
  // The tools the README names, and nothing else: no bun on this PATH.
  const bin = join(work, ".bin");
  mkdirSync(bin);
  for (const t of TOOLS) symlinkSync(Bun.which(t)!, join(bin, t));
  mkdirSync(join(work, "home"));
  const env = { HOME: join(work, "home"), TMPDIR: work };
  server = Bun.spawn(["./kbqa", "serve", "--port", "0"], { cwd: work, env, stdout: "pipe", stderr: "pipe" });
  void (async () => {
    for await (const c of server.stderr as ReadableStream<Uint8Array>) log += new TextDecoder().decode(c);
  })();
  const url = await readListeningLine(server, () => log);
  run = await runWalk(walkthroughAlone(url), work, { ...env, PATH: bin }, () => log);
}, 600_000);

afterAll(async () => {
  if (server) {
    server.kill("SIGTERM");
    await server.exited;
  }
  if (work) rmSync(work, { recursive: true, force: true });
});

test.skipIf(missing.length > 0)(`the blocks run through with jq's get and no bun${missing.length ? ` (missing: ${missing.join(", ")})` : ""}`, () => {
  expect(run.code).toBe(0);
  expect(run.stdout).toMatch(/^\{"orgId":"[0-9a-f-]{36}","userId":"alice","scope":\[\],"credential":"jwt"\}$/m);
  expect(run.stdout).toContain('"body":"Employees get 25 days of paid leave per year. [1]"');
  expect(run.stdout).toContain('"summary":"## Summary\\n\\n- Train travel is booked in second class.\\n","pages":[2]');
  expect(run.stdout).toContain("preview: HTTP 200\n");
  expect(readFileSync(join(work, ".tmp/page2.png")).subarray(1, 4).toString()).toBe("PNG");
  expect(run.stdout).toContain('"body":"How many days of paid leave do I get?"');
});
