// A small OpenAI-wire-compatible server for tests: JSON embeddings, SSE chat completions.
import { hashEmbed } from "../../../src/models/builtin-embed.ts";

export interface StubCall { path: string; auth: string | null; body: any; /** Set when the caller dropped the request before its end. */ aborted?: boolean }

/**
 * gate: awaited after the first streamed chunk, so a test can hold a generation in flight.
 * failWith: a status for chat requests the server should refuse (an OpenAI error object), or undefined.
 */
export function startOpenAIStub(opts: { reply: (body: any) => string; apiKey?: string; gate?: () => Promise<void>; failWith?: (body: any) => number | undefined }) {
  const calls: StubCall[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const body = await req.json().catch(() => ({}));
      const call: StubCall = { path: url.pathname, auth: req.headers.get("authorization"), body };
      calls.push(call);
      req.signal.addEventListener("abort", () => (call.aborted = true));
      if (opts.apiKey && req.headers.get("authorization") !== `Bearer ${opts.apiKey}`) {
        return Response.json({ error: { message: "bad key" } }, { status: 401 });
      }
      if (url.pathname === "/v1/embeddings") {
        const input: string[] = Array.isArray(body.input) ? body.input : [body.input];
        // reversed order on purpose: clients must sort by index
        const data = input.map((t, index) => ({ object: "embedding", index, embedding: Array.from(hashEmbed(t, 16)) })).reverse();
        return Response.json({ object: "list", model: body.model, data, usage: { prompt_tokens: 3, total_tokens: 3 } });
      }
      if (url.pathname === "/v1/chat/completions") {
        const failed = opts.failWith?.(body);
        if (failed) return Response.json({ error: { message: "the model server fell over", type: "server_error" } }, { status: failed });
        const words = opts.reply(body).match(/\S+\s*/g) ?? [];
        const stream = new ReadableStream({
          async start(c) {
            const enc = new TextEncoder();
            const send = (o: unknown) => c.enqueue(enc.encode(`data: ${JSON.stringify(o)}\n\n`));
            send({ id: "x", object: "chat.completion.chunk", choices: [{ index: 0, delta: { role: "assistant" } }] });
            await opts.gate?.();
            for (const w of words) send({ id: "x", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: w } }] });
            send({ id: "x", object: "chat.completion.chunk", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] });
            send({ id: "x", object: "chat.completion.chunk", choices: [], usage: { prompt_tokens: 42, completion_tokens: words.length, total_tokens: 42 + words.length } });
            c.enqueue(enc.encode("data: [DONE]\n\n"));
            c.close();
          },
        });
        return new Response(stream, { headers: { "content-type": "text/event-stream" } });
      }
      return new Response("not found", { status: 404 });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, calls, stop: () => server.stop(true) };
}
