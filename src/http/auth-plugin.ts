import { Elysia } from "elysia";
import type { AppContext } from "../context.ts";
import { authenticate, authorize } from "../auth/authenticate.ts";
import type { Principal } from "../auth/jwt.ts";
import { AppError } from "./errors.ts";
import { parseApiBody, RefusedBody } from "./body-limit.ts";
import { checkQuery, dropEmpty } from "./query-once.ts";
import { lowerCaseIds } from "./uuid-case.ts";

const WIDGET_PREFIXES = ["/v1/webhook/", "/webhook/v1/"];

/** The catch-all of unknown-routes.ts: a path or method the API does not serve. */
export const UNSERVED_ROUTE = "/v1/*";

/** The body of a request whose credential failed: never looked at, derive answers 403 first. */
const UNREAD = Object.freeze({});

/**
 * Resolves the caller before validation, so a request without a valid credential learns
 * nothing (403) about its parameters. Routes read `principal`; the organization is never
 * taken from anywhere else.
 */
export function authPlugin(ctx: AppContext) {
  // Deliberately not an async function: Elysia awaits a returned promise, and the common case
  // (a token seen before, or an access token) then stays synchronous, which is much faster.
  const identify = (request: Request) =>
    authenticate(ctx.db, { authorization: request.headers.get("authorization"), accessToken: request.headers.get("x-access-token") }, ctx.clock.now());
  // What the parse hook found, for derive to reuse: a request with a body is authenticated once.
  const identified = new WeakMap<Request, Principal | Promise<Principal>>();
  return (
    new Elysia({ name: "auth" })
      // Elysia parses a body before derive runs: without this, a request with no valid credential
      // (or a scope not covering it) and a malformed body learnt "400 malformed JSON" instead of
      // 403. Without a valid credential the body is left unread (an error thrown here would be
      // reported as a parse error), and derive, next, refuses the request. With one, the body is
      // read as JSON within the API's limit (body-limit.ts parseApiBody), and derive reuses the
      // principal found here.
      .onParse({ as: "scoped" }, ({ request, path, contentType, route }) => {
        // No route, no body to read: parsed, a malformed one answered 400 instead of 404 or 405.
        if (route === UNSERVED_ROUTE) return UNREAD;
        const admitted = (p: Principal) => {
          try {
            admit(p, request.method, path);
          } catch {
            return UNREAD;
          }
          return parseApiBody(request, contentType);
        };
        let found: Principal | Promise<Principal>;
        try {
          found = identify(request);
        } catch {
          return UNREAD;
        }
        identified.set(request, found);
        // Kept synchronous for a known credential and a sized body, the common case.
        return found instanceof Promise ? found.then(admitted, () => UNREAD) : admitted(found);
      })
      .derive({ as: "scoped" }, ({ request, path, body, route, params, query }) => {
        const found = identified.get(request) ?? identify(request);
        if (body instanceof RefusedBody) {
          // After the credential: a client without one learns nothing else (403 first).
          const refusal = () => {
            throw body.error;
          };
          return found instanceof Promise ? found.then(refusal) : refusal();
        }
        // Long handlers (a summary wait, an answer being generated) call this again before they
        // answer: revoking a token or deactivating a key fails requests already in flight.
        const recheck = async (): Promise<void> => void (await identify(request));
        const withRecheck = (p: Principal) => {
          const admitted = { ...admit(p, request.method, path), recheck };
          // After the credential, like every other refusal of a parameter.
          // HEAD is answered by the GET route, so it is held to the same query rules.
          const rules = ctx.queryRules?.(request.method === "HEAD" ? "GET" : request.method, route);
          checkQuery(request.url, rules);
          dropEmpty(query, rules);
          lowerCaseIds(params);
          lowerCaseIds(query);
          lowerCaseIds(body);
          return admitted;
        };
        return found instanceof Promise ? found.then(withRecheck) : withRecheck(found);
      })
  );
}

function admit(principal: Principal, method: string, path: string): { principal: Principal } {
  if (WIDGET_PREFIXES.some((p) => path.startsWith(p))) {
    // The widget family is for access tokens only (spec rule 9), each path under the scope of
    // the operation it stands for (auth/scope.ts).
    if (principal.kind !== "token") throw new AppError("FORBIDDEN", "The widget endpoints take an access token (X-Access-Token)");
    authorize(principal, method, path);
  } else if (principal.kind === "token" && method === "POST" && path === "/v1/auth/access-token") {
    // Said as the rule it is (spec, Authentication rule 2), not as a scope the token lacks.
    throw new AppError("FORBIDDEN", "Access tokens can only be created with an RSA JWT, not with an access token");
  } else {
    authorize(principal, method, path);
  }
  return { principal };
}
