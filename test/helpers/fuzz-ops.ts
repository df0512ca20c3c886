/**
 * The operations a fuzz run covers: those of the server's OpenAPI document, the deprecated ones
 * it leaves out, and which domain test file owns each.
 */
import type { Op } from "./fuzz-cases.ts";
import type { OpenApiOp, World } from "./fuzz-world.ts";

/**
 * Which test file fuzzes which operation ("METHOD /path"): every published operation belongs to
 * exactly one (test/fuzz/auth-config-usage.test.ts checks it).
 */
export const DOMAINS: Record<string, (key: string) => boolean> = {
  "auth, config, usage, health": (k) => /^\w+ \/(v1\/(auth|config|usage)|pub)\//.test(k),
  "corpora and sessions": (k) => /^\w+ \/v1\/(corpus|session)\//.test(k),
  documents: (k) => /^\w+ \/(v1\/doc\/|storage\/|v1\/post\/attachment\/\{docId\})/.test(k),
  chunks: (k) => /^\w+ \/v1\/chunk\//.test(k),
  "posts and agents": (k) => /^\w+ \/v1\/(post|agent)\//.test(k) && !k.includes("{docId}"),
  widget: (k) => k.includes("/webhook/"),
};

/** The operations of the server's OpenAPI document whose key ("METHOD /path") matches. */
export function opsOf(w: World, match: (key: string) => boolean): Op[] {
  const out: Op[] = [];
  for (const [path, methods] of Object.entries(w.spec.paths)) {
    for (const [m, spec] of Object.entries(methods)) {
      const key = `${m.toUpperCase()} ${path}`;
      if (match(key)) out.push({ key, method: m.toUpperCase(), path, spec: spec as OpenApiOp });
    }
  }
  return out;
}

type Param = NonNullable<OpenApiOp["parameters"]>[number];
/**
 * A query's parameters as a JSON body. An optional parameter sent empty counts as absent, and a
 * body standing for that query takes an empty string the same way (test/posts/empty-agent-id-in-body.test.ts).
 */
const asBody = (params: Param[]): OpenApiOp => ({
  requestBody: {
    content: {
      "application/json": {
        schema: {
          type: "object",
          required: params.filter((x) => x.required).map((x) => x.name),
          properties: Object.fromEntries(params.map((x) => [x.name, x.required ? x.schema : { anyOf: [x.schema, { type: "string", const: "" }] }])),
        },
      },
    },
  },
});

/**
 * Deprecated operations are served but left out of the published document (README): each is
 * fuzzed with the published schema of the operation it stands for.
 */
export function hiddenOps(w: World): Op[] {
  const p = w.spec.paths;
  const ask = p["/v1/post/q"]!.get!.parameters!;
  const sessionQ = p["/v1/session/q"]!.get!.parameters!;
  const only = (names: string[], required: string[] = []) => sessionQ.filter((x) => names.includes(x.name)).map((x) => ({ ...x, required: required.includes(x.name) }));
  const op = (method: string, path: string, spec: OpenApiOp, widget = false): Op => ({ key: `${method} ${path}`, method, path, spec, widget });
  const openSession = p["/v1/session/"]!.post!.requestBody!.content["application/json"]!.schema;
  return [
    op("POST", "/v1/post/", asBody(ask)),
    op("PUT", "/v1/corpus/{corpusId}", p["/v1/corpus/{corpusId}"]!.patch!),
    op("GET", "/v1/session/byUser", { parameters: only(["userId", "corpusId", "pageSize", "pageIndex"]) }),
    op("GET", "/v1/session/byMetadata", { parameters: only(["key", "value", "pageSize", "pageIndex"], ["key", "value"]) }),
    op("POST", "/v1/webhook/widget/init", p["/v1/session/"]!.post!, true),
    op("POST", "/v1/webhook/widget/q", asBody(ask), true),
    op("GET", "/v1/webhook/widget/q", p["/v1/post/q"]!.get!, true),
    op("GET", "/v1/webhook/widget/", p["/v1/post/"]!.get!, true),
    op("GET", "/v1/webhook/widget/attachment/{postId}", p["/v1/post/attachment/{postId}"]!.get!, true),
    op("POST", "/webhook/v1/widget/{lang}", {
      parameters: [{ name: "lang", in: "path", required: true, schema: { type: "string", minLength: 2, maxLength: 16, pattern: "^[A-Za-z]{2,3}([_-][A-Za-z0-9]{1,8})*$" } }],
      ...asBody([...ask.filter((x) => x.name !== "lang").map((x) => ({ ...x, required: x.name === "body" })), { name: "corpusIds", in: "body", schema: openSession.properties.corpusIds }]),
    }, true),
  ];
}
