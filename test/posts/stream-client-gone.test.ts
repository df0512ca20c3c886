// A client that goes away before the first token: Bun cancels a response stream only once bytes
// were written, so the request's own signal must reach the generation, or a model still reading a
// long prompt works on for nobody (seconds of a core per abandoned question).
import { expect, test } from "bun:test";
import { streamExchange } from "../../src/posts/stream.ts";
import type { Prepared, QueryService } from "../../src/posts/query.ts";

const silent = { info() {}, error() {} };

test("the request's abort reaches the generation before any token was sent", async () => {
  let seen: AbortSignal | undefined;
  let stopped!: () => void;
  const stoppedByAbort = new Promise<void>((r) => (stopped = r));
  // A generation still reading its prompt: no token yet, ends only when told to.
  const queries = {
    run: (_p: Prepared, opts: { signal?: AbortSignal }) =>
      new Promise((_resolve, reject) => {
        seen = opts.signal;
        opts.signal!.addEventListener("abort", () => {
          stopped();
          reject(new Error("aborted"));
        });
      }),
  } as unknown as QueryService;
  const client = new AbortController();
  const res = streamExchange(queries, {} as Prepared, "/v1/post/q", silent, undefined, client.signal);
  const reader = res.body!.getReader(); // the stream starts; nothing is read yet
  await Promise.resolve();
  expect(seen?.aborted).toBe(false);

  client.abort();
  await stoppedByAbort;
  expect(seen!.aborted).toBe(true);
  reader.releaseLock();
});
