// Every `](#anchor)` link of the README lands on one of its headings, under GitHub's rule for
// heading ids: lower case, punctuation and symbols dropped (letters, digits, spaces, `-` and `_`
// kept), spaces turned into `-`, and `-1`, `-2`… appended to repeats.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../helpers/server.ts";

function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    const h = fenced ? null : /^#{1,6}\s+(.*?)\s*$/.exec(line);
    if (!h) continue;
    const slug = h[1]!.toLowerCase().replace(/[^\p{L}\p{N}\p{M} _-]/gu, "").replace(/ /g, "-");
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n ? `${slug}-${n}` : slug);
  }
  return out;
}

test("the slug rule, on headings of the README's kinds", () => {
  const a = anchors("## Widget backend (deprecated, not in the OpenAPI document)\n### Query latency (`RUST_LOG=error bun scripts/bench-query.ts`)\n```sh\n# not a heading\n```\n### Upload (`bun scripts/bench-upload.ts 1000`)\n## Upload (`bun scripts/bench-upload.ts 1000`)");
  expect([...a]).toEqual([
    "widget-backend-deprecated-not-in-the-openapi-document",
    "query-latency-rust_logerror-bun-scriptsbench-queryts",
    "upload-bun-scriptsbench-uploadts-1000",
    "upload-bun-scriptsbench-uploadts-1000-1",
  ]);
});

test("every link to an anchor of README.md finds its heading", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const have = anchors(readme);
  const links = [...readme.matchAll(/\]\(#([^)\s]+)\)/g)].map((m) => m[1]!);
  expect(links.length).toBeGreaterThan(20);
  expect(links.filter((l) => !have.has(l))).toEqual([]);
});
