import type { ErrorBody } from "../http/errors.ts";
import { AppError, errorBody, volumeError } from "../http/errors.ts";
import type { Logger } from "../context.ts";
import type { Exchange, Prepared, QueryService } from "./query.ts";

/**
 * Whether the client asked for server-sent events: `text/event-stream` named with a quality above
 * 0 and not below the one JSON gets (from its most specific range: application/json, then
 * application/any, then any type). Streaming is additive and JSON is the spec's answer: a header
 * listing the stream with q=0 refuses it (RFC 9110 12.4.2), and one ranking JSON higher prefers
 * JSON; both had been answered with a stream because the type was merely mentioned.
 */
export function wantsStream(accept: string | null): boolean {
  if (!accept) return false;
  let stream = -1;
  const json = { "application/json": -1, "application/*": -1, "*/*": -1 };
  for (const range of accept.split(",")) {
    const [type = "", ...params] = range.split(";");
    const media = type.trim().toLowerCase();
    let q = 1;
    for (const p of params) {
      const eq = p.indexOf("=");
      if (eq > 0 && p.slice(0, eq).trim().toLowerCase() === "q") {
        const n = Number(p.slice(eq + 1).trim());
        if (p.slice(eq + 1).trim() !== "" && n >= 0 && n <= 1) q = n;
      }
    }
    if (media === "text/event-stream") stream = Math.max(stream, q);
    else if (Object.hasOwn(json, media)) json[media as keyof typeof json] = Math.max(json[media as keyof typeof json], q);
  }
  const forJson = json["application/json"] >= 0 ? json["application/json"] : json["application/*"] >= 0 ? json["application/*"] : json["*/*"];
  return stream > 0 && stream >= forJson;
}

/** How often a streaming answer re-checks the caller's credential, milliseconds. */
export const RECHECK_MS = 250;

const frame = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * Server-sent events for a prepared query: `token` frames ({text}) as the answer is generated,
 * then `done` with the two stored posts ({query, answer}). Refusals happen in prepare(), before
 * this starts, so they still get the JSON error; a failure after the first byte can only be told
 * in-band, as an `error` frame carrying the usual error object. A client that goes away aborts
 * generation. The caller's credential is checked again while tokens flow (at most every
 * RECHECK_MS) and before the exchange is stored: once revoked, generation stops (or nothing is
 * stored) and the stream ends with a 403 `error` frame (spec, Authentication rule 4).
 */
export function streamExchange(
  queries: QueryService, prepared: Prepared, path: string, log: Logger, recheck?: () => Promise<void>, clientSignal?: AbortSignal,
): Response {
  // The client went away: the stream is cancelled once bytes were sent, but before the first token
  // only the request's own signal tells (the model may still be reading the prompt).
  const gone = new AbortController();
  if (clientSignal) {
    if (clientSignal.aborted) gone.abort();
    else clientSignal.addEventListener("abort", () => gone.abort(), { once: true });
  }
  const revoked = new AbortController();
  let refusal: unknown = null;
  let checked = Date.now();
  const enc = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (event: string, data: unknown) => {
        if (!gone.signal.aborted) controller.enqueue(enc.encode(frame(event, data)));
      };
      const onToken = (text: string) => {
        send("token", { text });
        if (!recheck || refusal || Date.now() - checked < RECHECK_MS) return;
        checked = Date.now();
        recheck().catch((e) => {
          refusal = e;
          revoked.abort();
        });
      };
      try {
        const done: Exchange = await queries.run(prepared, { signal: AbortSignal.any([gone.signal, revoked.signal]), onToken, recheck }).catch((e) => {
          throw refusal ?? e;
        });
        send("done", done);
      } catch (e) {
        const known = e instanceof AppError ? e : volumeError(e);
        const status = known ? known.status : 500;
        const message = known ? known.message : "Unexpected server error; it has been logged";
        if (!(e instanceof AppError)) log.error("stream failed", { path, error: String((e as Error)?.stack ?? e) });
        const err: ErrorBody = errorBody(status, message, path);
        send("error", err);
      }
      if (!gone.signal.aborted) controller.close();
    },
    cancel() {
      gone.abort();
    },
  });
  return new Response(body, {
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store", "x-accel-buffering": "no" },
  });
}
