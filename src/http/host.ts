import { errorBody } from "./errors.ts";
import { closeAfterAnswer } from "./error-handler.ts";

/**
 * A host name (labels of letters, digits, hyphens, and the underscores of Docker's container
 * names; an optional final dot), an IPv4 address or a bracketed IPv6 one, and an optional port.
 */
const HOST_RE = /^(?:(?:[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?|\[[0-9A-Fa-f:.]+\])(?::(\d{1,5}))?$/;

function validHost(host: string): boolean {
  const m = HOST_RE.exec(host);
  return !!m && (m[1] === undefined || Number(m[1]) <= 65535);
}

/**
 * Bun builds `request.url` from the Host header as sent, and presigned URLs are written with that
 * origin. A Host that is no URL authority (`a b`, `%`, `x:99999`) made every route that parses the
 * URL fail with a 500, and one that parses with extra parts (`evil.com/x`, `a@b`) silently became
 * another origin; anything but a host name or address with an optional port answers 400 before
 * routing.
 */
export function invalidHost(request: Request, server: Parameters<typeof closeAfterAnswer>[0]): Response | undefined {
  const host = request.headers.get("host");
  if (host === null ? URL.canParse(request.url) : validHost(host) && URL.canParse(request.url)) return undefined;
  // The request target follows the Host as sent (which may itself hold a slash).
  const scheme = /^[a-z]+:\/\//i.exec(request.url)?.[0] ?? "";
  const target = host !== null && request.url.startsWith(scheme + host) ? request.url.slice(scheme.length + host.length) : request.url.replace(/^[a-z]+:\/\/[^/]*/i, "");
  const path = /^\/[^?#]*/.exec(target)?.[0] ?? "/";
  const body = errorBody(400, `Invalid Host header "${(request.headers.get("host") ?? "").slice(0, 100)}": not a host name or address with an optional port`, path);
  return new Response(JSON.stringify(body), { status: 400, headers: { "content-type": "application/json", ...closeAfterAnswer(server, request) } });
}
