// scripts/json-get.ts, the README's `get`, takes an array element as `items[1].url` as well as
// `items.1.url`: the jq `get` of the executable-alone walkthrough understands only the first, and
// the README's blocks must work with both.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { ROOT } from "../helpers/server.ts";

async function get(path: string, input: string) {
  const p = Bun.spawn(["bun", join(ROOT, "scripts/json-get.ts"), path], { stdin: new Blob([input]), stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, stdout, stderr };
}

const previews = JSON.stringify({ items: [{ size: "SMALL", url: "http://a/s" }, { size: "MEDIUM", url: "http://a/m" }] });

test("items[1].url and items.1.url name the same element", async () => {
  expect(await get("items[1].url", previews)).toEqual({ code: 0, stdout: "http://a/m\n", stderr: "" });
  expect(await get("items.1.url", previews)).toEqual({ code: 0, stdout: "http://a/m\n", stderr: "" });
});

test("a top-level array: [0].id (kbqa org list)", async () => {
  expect(await get("[0].id", '[{"id":"o1","name":"Acme"},{"id":"o2","name":"B"}]')).toEqual({ code: 0, stdout: "o1\n", stderr: "" });
});

test("an index past the end is a missing field: exit 1 showing the input", async () => {
  const r = await get("items[2].url", previews);
  expect(r.code).toBe(1);
  expect(r.stdout).toBe("");
  expect(r.stderr).toContain('json-get: no "items[2].url" in: {"items"');
});

test("a negative index counts from the end, as in jq: [-1].id is the newest organization", async () => {
  expect(await get("[-1].id", '[{"id":"o1","name":"Acme"},{"id":"o2","name":"Acme"}]')).toEqual({ code: 0, stdout: "o2\n", stderr: "" });
  expect(await get("items[-2].url", previews)).toEqual({ code: 0, stdout: "http://a/s\n", stderr: "" });
});
