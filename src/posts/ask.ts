import { AppError } from "../http/errors.ts";
import type { Logger } from "../context.ts";
import type { Principal } from "../auth/jwt.ts";
import type { QueryInput, QueryService } from "./query.ts";
import { streamExchange, wantsStream } from "./stream.ts";

/**
 * One question, for the post routes and the widget's aliases alike: JSON by default, server-sent
 * events when asked for. `recheck` re-validates the caller's credential once the answer exists,
 * before it is stored: one revoked while the answer was generated fails the request and leaves
 * no posts (spec, Authentication rule 4).
 */
export async function askQuestion(
  queries: QueryService, log: Logger, principal: Principal, input: QueryInput, request: Request, path: string, recheck: () => Promise<void>,
  /** The methods the asking path is served under, for the Allow of a refused HEAD. */
  served: string[] = ["GET"],
) {
  // A GET that writes: HEAD (a link checker, a prefetching proxy) would store a question and an
  // answer while the client reads no body.
  if (request.method === "HEAD") {
    throw new AppError("METHOD_NOT_ALLOWED", `HEAD is not allowed on ${path}: it would ask the question and store both posts (use GET)`, { allowed: served });
  }
  const prepared = await queries.prepare(principal, input);
  if (wantsStream(request.headers.get("accept"))) return streamExchange(queries, prepared, path, log, recheck, request.signal);
  return queries.run(prepared, { signal: request.signal, recheck });
}
