import { Elysia } from "elysia";
import { openapi } from "@elysiajs/openapi";
import { DOCS_ASSETS } from "./docs-assets.ts";

export const SPEC_PATH = "/openapi.json";

/** What the document needs of a route: Elysia's own route records. */
export interface RouteRecord {
  method: string;
  path: string;
  hooks?: { body?: unknown; query?: unknown; params?: unknown };
}

type Json = Record<string, unknown>;

const ERROR_SCHEMA = {
  type: "object",
  description: "The error object every refused /v1 request carries (spec: Errors)",
  required: ["timestamp", "status", "error", "message", "path"],
  properties: {
    timestamp: { type: "string", format: "date-time" },
    status: { type: "integer" },
    error: { type: "string", description: "Reason phrase of the status" },
    message: { type: "string", description: "What was wrong, naming the field at fault" },
    path: { type: "string" },
  },
  additionalProperties: true,
};

const errorResponse = (description: string) => ({ description, content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } });

/** Elysia's numbers also accept their string form, published as `anyOf: [string, integer]`; clients send numbers. */
function plainNumbers(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(plainNumbers);
  if (node === null || typeof node !== "object") return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) out[k] = plainNumbers(v);
  const anyOf = out.anyOf as Json[] | undefined;
  if (Array.isArray(anyOf)) {
    const numbers = anyOf.filter((m) => m.type === "integer" || m.type === "number");
    const carriers = anyOf.filter((m) => m.type === "string" && (m.format === "integer" || m.format === "numeric"));
    if (numbers.length === 1 && carriers.length === 1 && anyOf.length === 2) {
      delete out.anyOf;
      return { ...out, ...numbers[0] };
    }
  }
  return out;
}

type Param = { name?: string; in?: string; schema?: { title?: string } };

function specNames(paths: Record<string, Record<string, Json>>): Record<string, Record<string, Json>> {
  const out: Record<string, Record<string, Json>> = {};
  for (const [path, ops] of Object.entries(paths)) {
    let named = path;
    for (const op of Object.values(ops)) {
      for (const p of (op.parameters ?? []) as Param[]) {
        const title = p.schema?.title;
        if (p.in !== "path" || !title || title === p.name) continue;
        named = named.replace(`{${p.name}}`, `{${title}}`);
        p.name = title;
      }
    }
    out[named] = ops;
  }
  return out;
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * The plugin's naming (method, then each path segment capitalised, `{x}` as `ByX`), made an
 * identifier: a generated client names its methods after these, and `-` (access-token) or `*`
 * (/storage/*) is no part of a method name. Ids already clean come out unchanged.
 */
export function operationId(method: string, path: string): string {
  const segment = (s: string) => (s === "*" ? "Object" : /^\{(\w+)\}$/.test(s) ? `By${cap(s.slice(1, -1))}` : s.split("-").map(cap).join(""));
  return method.toLowerCase() + path.split("/").filter(Boolean).map(segment).join("");
}

/**
 * Completes what the plugin leaves out of the generated document, once per generated document:
 * - request bodies: the plugin publishes a body's schema only for named parsers, and every /v1
 *   route parses with the authentication hook's function (http/auth-plugin.ts), so each body
 *   was published as `content: {}`; the route's own schema is put back as application/json;
 * - numbers lose the string form Elysia accepts for query strings;
 * - every /v1 operation documents its refusals with the spec's error object;
 * - a path parameter the router names otherwise than the spec (`title` on its schema) is
 *   published under the spec's name: /v1/post/attachment/{docId}/download-url;
 * - operationIds are identifiers naming the path parameters as published (operationId above).
 */
export function polish(doc: Json, routes: readonly RouteRecord[]): Json {
  const paths = doc.paths as Record<string, Record<string, Json>>;
  for (const route of routes) {
    const body = route.hooks?.body;
    if (!body || typeof body !== "object") continue;
    const op = paths[route.path.replace(/:([^/]+)/g, "{$1}")]?.[route.method.toLowerCase()];
    const requestBody = op?.requestBody as { content?: Json } | undefined;
    if (requestBody && Object.keys(requestBody.content ?? {}).length === 0) {
      requestBody.content = { "application/json": { schema: JSON.parse(JSON.stringify(body)) } };
    }
  }
  for (const [path, ops] of Object.entries(paths)) {
    if (!path.startsWith("/v1/")) continue;
    for (const op of Object.values(ops)) {
      const responses = (op.responses ??= {}) as Json;
      responses["4XX"] ??= errorResponse("Refused: bad input (400), no or insufficient credential (403), not found (404), conflict (409), too large (413), unsupported type (415)");
      responses["5XX"] ??= errorResponse("Not available: the data disk is full (507) or read-only (503), a model is busy (503), a remote model failed (502)");
    }
  }
  const components = (doc.components ??= {}) as Json;
  doc.paths = specNames(paths);
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(ops)) op.operationId = operationId(method, path);
  }
  components.schemas = { ...(components.schemas as Json | undefined), Error: ERROR_SCHEMA };
  doc.paths = plainNumbers(doc.paths);
  doc.components = plainNumbers(components);
  return doc;
}

/**
 * The OpenAPI document at /openapi.json and Swagger UI at /docs. The plugin caches the document
 * it generates, so it is completed once per generated object.
 */
export function apiDocs(routes: () => readonly RouteRecord[], info: { title: string; version: string; description: string }) {
  const done = new WeakSet<object>();
  return new Elysia({ name: "api-docs" })
    .onAfterHandle(({ path, response }) => {
      if (path !== SPEC_PATH || response === null || typeof response !== "object" || done.has(response)) return;
      done.add(polish(response as Json, routes()));
    })
    .use(
      openapi({
        path: "/docs",
        specPath: SPEC_PATH,
        // Swagger UI from files this server serves: the default page pulls its script from a CDN,
        // which an air-gapped install cannot reach (a blank page).
        provider: "swagger-ui",
        swagger: { ...DOCS_ASSETS },
        documentation: {
          info,
          components: {
            securitySchemes: {
              bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
              accessToken: { type: "apiKey", in: "header", name: "X-Access-Token" },
            },
          },
          security: [{ bearer: [] }, { accessToken: [] }],
        },
        exclude: { paths: ["/docs", SPEC_PATH, DOCS_ASSETS.cdn, DOCS_ASSETS.theme] },
      }),
    );
}
