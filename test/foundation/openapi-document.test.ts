import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa } from "../helpers/server.ts";

// /openapi.json is what clients generate SDKs from: it must carry every request body's schema
// (the plugin published `content: {}` for routes parsed by the authentication hook), document
// refusals with the spec's error object, and type numbers as numbers.
type Op = { requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown>; required?: string[] } }> }; responses?: Record<string, { content?: Record<string, { schema: unknown }> }>; security?: unknown[]; parameters?: { name: string; in: string; required: boolean; schema?: unknown }[] };
let k: Kbqa;
let paths: Record<string, Record<string, Op>>;
let doc: { components: { schemas: Record<string, { required?: string[] }> } };
beforeAll(async () => {
  k = await startKbqa();
  const r = await k.request("GET", "/openapi.json");
  ({ paths } = r.body);
  doc = r.body;
});
afterAll(() => k?.stop());

const bodyOf = (path: string, method: string) => paths[path]![method]!.requestBody?.content["application/json"]?.schema;

test("every JSON body is published with its fields, as application/json", () => {
  const withBody = Object.entries(paths).flatMap(([p, ops]) => Object.entries(ops).filter(([, op]) => op.requestBody).map(([m, op]) => [`${m} ${p}`, Object.keys(op.requestBody!.content)]));
  expect(withBody.length).toBeGreaterThanOrEqual(10);
  for (const [op, types] of withBody) expect({ op, types }).toEqual({ op, types: ["application/json"] });
  expect(Object.keys(bodyOf("/v1/auth/access-token", "post")!.properties!)).toEqual(expect.arrayContaining(["scope", "ttl"]));
  expect(bodyOf("/v1/auth/access-token", "post")!.required).toEqual(["scope"]);
  expect(Object.keys(bodyOf("/v1/doc/init", "post")!.properties!)).toEqual(expect.arrayContaining(["corpusId", "filename", "contentType", "tags", "chunk"]));
  expect(Object.keys(bodyOf("/v1/agent/{agentId}", "patch")!.properties!)).toEqual(expect.arrayContaining(["topK", "reset"]));
});

test("numbers are typed as numbers, without the string form Elysia also accepts", () => {
  const text = JSON.stringify(paths);
  expect(text).not.toContain(`"format":"integer"`);
  expect(text).not.toContain(`"format":"numeric"`);
  const pageSize = paths["/v1/corpus/"]!.get!.parameters!.find((p) => p.name === "pageSize");
  expect(pageSize).toEqual({ name: "pageSize", in: "query", required: false, schema: expect.objectContaining({ type: "integer", minimum: 1, maximum: 100 }) });
});

test("every /v1 operation documents its refusals with the error object", () => {
  expect(doc.components.schemas.Error!.required).toEqual(["timestamp", "status", "error", "message", "path"]);
  for (const [p, ops] of Object.entries(paths)) {
    if (!p.startsWith("/v1/")) continue;
    for (const [m, op] of Object.entries(ops)) {
      const refusal = op.responses?.["4XX"]?.content?.["application/json"]?.schema;
      expect({ op: `${m} ${p}`, refusal }).toEqual({ op: `${m} ${p}`, refusal: { $ref: "#/components/schemas/Error" } });
    }
  }
});

test("statuses, credentials and required parameters as the spec says", () => {
  expect(Object.keys(paths["/v1/doc/{id}/commit"]!.post!.responses!)).toEqual(expect.arrayContaining(["200", "202"]));
  expect(Object.keys(paths["/v1/doc/{id}/summary"]!.get!.responses!["200"]!.content!)).toEqual(["text/markdown"]);
  expect(paths["/pub/ping"]!.get!.security).toEqual([]);
  expect(paths["/storage/*"]!.put!.security).toEqual([]);
  for (const p of ["/v1/doc/{id}/preview-urls", "/v1/post/attachment/{docId}/preview-urls"]) {
    expect(paths[p]!.get!.parameters!.find((x) => x.name === "pages")?.required).toBe(true);
  }
});

test("the attachment paths carry the spec's parameter names, not the router's", () => {
  const names = (path: string) => paths[path]?.get?.parameters?.filter((p) => p.in === "path").map((p) => p.name);
  expect(names("/v1/post/attachment/{postId}")).toEqual(["postId"]);
  expect(names("/v1/post/attachment/{docId}/download-url")).toEqual(["docId"]);
  expect(names("/v1/post/attachment/{docId}/preview-urls")).toEqual(["docId"]);
  expect(Object.keys(paths).filter((p) => p.startsWith("/v1/post/attachment/{id}"))).toEqual([]);
});

test("a malformed attachment id is refused under the spec's name for it", async () => {
  const org = await k.org();
  for (const [path, name] of [["/v1/post/attachment/xyz", "postId"], ["/v1/post/attachment/xyz/download-url", "docId"], ["/v1/post/attachment/xyz/preview-urls?pages=0", "docId"], ["/v1/doc/xyz/download-url", "id"]]) {
    const r = await org.api("GET", path!);
    expect({ path, status: r.status, message: r.body.message }).toEqual({ path, status: 400, message: `Invalid path parameter '${name}': must be a UUID (got "xyz")` });
  }
});
