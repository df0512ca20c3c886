// Generated clients name their methods after operationIds: each must be an identifier (the
// plugin left `-` from `access-token` and `*` from `/storage/*` in them), unique, and name the
// path parameters as published (the attachment paths said `ById` for `{docId}` and `{postId}`).
import { expect, test } from "bun:test";
import { publishedPaths } from "../helpers/openapi-paths.ts";

const doc = publishedPaths();

const cap = (s: string) => s[0]!.toUpperCase() + s.slice(1);

test("every operationId is a unique identifier naming its path parameters as published", () => {
  const ops = Object.entries(doc.paths).flatMap(([path, ms]) => Object.entries(ms).map(([m, op]) => ({ at: `${m.toUpperCase()} ${path}`, path, id: op.operationId as string })));
  expect(ops.length).toBeGreaterThanOrEqual(50);
  const bad = ops.filter((o) => !/^[a-z]+[A-Za-z0-9]*$/.test(o.id ?? "") || [...o.path.matchAll(/\{(\w+)\}/g)].some((m) => !o.id.includes(`By${cap(m[1]!)}`)));
  expect(bad.map((o) => `${o.at}: ${o.id}`)).toEqual([]);
  expect(new Set(ops.map((o) => o.id)).size).toBe(ops.length);
  // Identifiers that were already clean keep their names: generated method names do not move.
  expect(ops.filter((o) => ["GET /v1/corpus/{corpusId}", "GET /v1/doc/q", "GET /pub/ping"].includes(o.at)).map((o) => o.id)).toEqual(["getPubPing", "getV1CorpusByCorpusId", "getV1DocQ"]);
});
