import { errorBody } from "./errors.ts";
import { closeAfterAnswer } from "./error-handler.ts";

/**
 * Bun builds `request.url` from the Host header as sent. A Host that is no URL authority
 * (`a b`, `%`, `x:99999`) made every route that parses the URL (upload and download URLs,
 * listings, the storage route) fail with a 500; such a request is answered 400 before routing.
 */
export function invalidHost(request: Request, server: Parameters<typeof closeAfterAnswer>[0]): Response | undefined {
  if (URL.canParse(request.url)) return undefined;
  const path = /^[a-z]+:\/\/[^/]*(\/[^?#]*)?/i.exec(request.url)?.[1] ?? "/";
  const body = errorBody(400, `Invalid Host header "${(request.headers.get("host") ?? "").slice(0, 100)}": not a host name or address with an optional port`, path);
  return new Response(JSON.stringify(body), { status: 400, headers: { "content-type": "application/json", ...closeAfterAnswer(server, request) } });
}
