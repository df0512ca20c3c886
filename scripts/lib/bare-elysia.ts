// Baseline server for benchmarks: one Elysia route, no auth, no database.
import { Elysia } from "elysia";
const app = new Elysia()
  .get("/v1/corpus/:id", ({ params }) => ({ id: params.id, name: "bare", description: null, metadata: {}, createdAt: new Date(0).toISOString(), updatedAt: new Date(0).toISOString() }))
  .listen({ hostname: "127.0.0.1", port: 0 });
console.log(`kbqa listening on http://127.0.0.1:${app.server!.port}`);
