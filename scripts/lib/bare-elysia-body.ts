// Baseline server for bench-invalid-body: two Elysia routes, no auth, no database. `/parse-only`
// takes any JSON body (Elysia parses it, nothing validates it); `/v1/corpus/` and `/v1/session/`
// validate it against the service's schemas as Elysia alone does, which is how the service
// refused a bad body before its schemas were quieted (src/http/quiet-refusals.ts): the refusal's cost as it was.
import "../../src/http/typebox-setup.ts";
import { Elysia } from "elysia";
import { CorpusCreate } from "../../src/corpus/schema.ts";
import { SessionCreate } from "../../src/sessions/schema.ts";

const app = new Elysia({ normalize: false })
  .onError(({ code }) => new Response(JSON.stringify({ status: 400, code }), { status: 400 }))
  .post("/parse-only", ({ body }) => ({ keys: Object.keys(body as object).length }))
  .post("/v1/corpus/", () => ({ ok: true }), { body: CorpusCreate })
  .post("/v1/session/", () => ({ ok: true }), { body: SessionCreate })
  .get("/pub/ping", () => ({ status: "ok" }))
  .listen({ hostname: "127.0.0.1", port: 0, maxRequestBodySize: 64 * 1024 * 1024 });
console.log(`kbqa listening on http://127.0.0.1:${app.server!.port}`);
