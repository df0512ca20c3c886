import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

// The spec refuses key without value (or value without key); an empty value is still a value,
// and {"tag": ""} is metadata a client can store and search for.
let k: Kbqa;
let a: Org;
const ids: Record<string, string> = {};

beforeAll(async () => {
  k = await startKbqa();
  a = await k.org();
  const c = (await a.api("POST", "/v1/corpus/", { name: "c" })).body.id;
  const open = async (metadata: Record<string, unknown>) => (await a.api("POST", "/v1/session/", { corpusIds: [c], metadata })).body.id as string;
  ids.blank = await open({ tag: "" });
  ids.tagged = await open({ tag: "x" });
  ids.untagged = await open({ other: "" });
  ids.emptyKey = await open({ "": "web" });
});
afterAll(() => k?.stop());

const q = (params: Record<string, string>) => a.api("GET", `/v1/session/q?${new URLSearchParams(params)}`);
const names = (items: { id: string }[]) => items.map((i) => Object.keys(ids).find((n) => ids[n] === i.id) ?? "?");

test("key with an empty value finds the sessions whose value is the empty string", async () => {
  const r = await q({ key: "tag", value: "" });
  expect(r.status).toBe(200);
  expect(names(r.body.items)).toEqual(["blank"]);
  expect(r.body.total).toBe(1);
  expect(r.body.filters).toEqual({ key: "tag", value: "" });
});

test("the deprecated byMetadata accepts an empty value too", async () => {
  const r = await a.api("GET", "/v1/session/byMetadata?key=tag&value=");
  expect(r.status).toBe(200);
  expect(names(r.body.items)).toEqual(["blank"]);
});

test("an empty key is a key: it names the metadata key \"\"", async () => {
  const r = await q({ key: "", value: "web" });
  expect(r.status).toBe(200);
  expect(names(r.body.items)).toEqual(["emptyKey"]);
});

test("a parameter left out is still missing, whatever its partner holds", async () => {
  for (const params of [{ key: "tag" }, { value: "" }, { value: "x" }] as Record<string, string>[]) {
    const r = await q(params);
    expect({ params, status: r.status }).toEqual({ params, status: 400 });
    expect(r.body.message).toMatch(/'(key|value)'/);
  }
});

test("userId sent empty still counts as absent", async () => {
  const r = await q({ userId: "", key: "tag", value: "" });
  expect(r.status).toBe(200);
  expect(r.body.filters).toEqual({ key: "tag", value: "" });
  expect(names(r.body.items)).toEqual(["blank"]);
});
