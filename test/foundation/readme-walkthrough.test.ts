// The README's getting-started blocks, copied out of README.md and run in one bash as a newcomer
// pastes them (first steps, upload, questions, citations and previews, sessions, agents, usage,
// widget), against a real server. Only what the README itself says to change for another port
// is changed: the block's `API=` line and `export KBQA_PORT=… KBQA_DATA_DIR=…`. A README edit
// that breaks a command, a field the blocks read, or an answer they expect fails here.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, startKbqa, type Kbqa } from "../helpers/server.ts";
import { readmeBlocks, runWalk, walkthrough } from "../helpers/readme-walk.ts";

let k: Kbqa;
let work: string;
let prelude: string;
let run: { code: number; stdout: string; stderr: string };
const bash = (script: string) => runWalk(prelude + script, work, { PATH: process.env.PATH!, HOME: work }, () => k.stderr());

beforeAll(async () => {
  k = await startKbqa();
  // A folder standing for the checkout, so that the blocks' .tmp/ is the test's own.
  work = mkdtempSync(join(tmpdir(), "kbqa-readme-"));
  for (const f of ["package.json", "src", "scripts", "node_modules"]) symlinkSync(join(ROOT, f), join(work, f));
  prelude = `export KBQA_PORT=${new URL(k.url).port} KBQA_DATA_DIR=${k.dataDir}\n`;
  run = await bash(walkthrough(k.url));
}, 240_000); // 4 s on a quiet machine; the blocks poll for up to 120 s (READY) and 60 s (the tile)

afterAll(async () => {
  await k?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

test("the blocks run through without a failing step", () => {
  expect(run.code).toBe(0);
});

test("first steps: the JWT made from the CLI's organization and key is accepted", () => {
  expect(run.stdout).toMatch(/^\{"orgId":"[0-9a-f-]{36}","userId":"alice","scope":\[\],"credential":"jwt"\}$/m);
});

test("upload: PUT 200, commit 202, READY, and the summary", () => {
  expect(run.stdout).toContain(" HTTP 200\n");
  expect(run.stdout).toMatch(/"status":"PROCESSING".* HTTP 202\n/);
  expect(run.stdout).toContain("- Employees get 25 days of paid leave per year.");
});

test("questions: answered with a citation, also streamed", () => {
  expect(run.stdout).toContain('"body":"Employees get 25 days of paid leave per year. [1]"');
  expect(run.stdout).toMatch(/event: done\ndata: \{"query":/);
});

test("citations, the original and the preview of the cited PDF page", () => {
  expect(run.stdout).toContain('"summary":"## Summary\\n\\n- Employees get 25 days of paid leave per year.\\n","pages":[]');
  expect(run.stdout).toContain("# Leave policy\n\nEmployees get 25 days of paid leave per year.\n");
  expect(run.stdout).toContain("commit: HTTP 202\n");
  expect(run.stdout).toContain('"summary":"## Summary\\n\\n- Train travel is booked in second class.\\n","pages":[2]');
  expect(run.stdout).toContain("preview: HTTP 200\n");
  const png = readFileSync(join(work, ".tmp/page2.png"));
  expect([...png.subarray(1, 4)].map((c) => String.fromCharCode(c)).join("")).toBe("PNG");
  expect(png.readUInt32BE(16)).toBe(1024); // the MEDIUM tile's width
});

test("sessions, agents, usage and the widget token", () => {
  expect(run.stdout).toContain('"filters":{"json":{"channel":"web"}}');
  expect(run.stdout).toContain('"name":"Platform Default"');
  expect(run.stdout).toContain('{"timeframe":"Day"');
  expect(run.stdout).toContain('{"timeframe":"Month"');
  expect(run.stdout).toContain('"body":"How many days of paid leave do I get?"');
  expect(run.stdout).toMatch(/"total":2,"items":\[\{[^}]*"owner":"SYSTEM","body":"Employees get 25 days/);
});

test("a new terminal: the README's lines find the organization, key, corpus and document again", async () => {
  const [first, again] = readmeBlocks().get("First steps with curl")!;
  const setup = first!.split("\n").slice(0, 2).join("\n").replace("API=http://127.0.0.1:8080", `API=${k.url}`);
  const r = await bash(`${setup}\n${again}\ncurl -s -w '\\n' -H "$H" $API/v1/doc/$DOC\n`);
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/^\{"id":"[0-9a-f-]{36}","corpusId":"[0-9a-f-]{36}","filename":"policy.md",.*"status":"READY"/);
});
