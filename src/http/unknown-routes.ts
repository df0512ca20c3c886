import { Kind, type TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { Elysia } from "elysia";
import type { AppContext } from "../context.ts";
import { authPlugin, UNSERVED_ROUTE } from "./auth-plugin.ts";
import { AppError } from "./errors.ts";
import { lowerCaseIds } from "./uuid-case.ts";

interface RouteLike {
  method: string;
  path: string;
  hooks?: { params?: unknown };
}

interface Pattern {
  method: string;
  re: RegExp;
  names: string[];
  params?: TSchema;
}

/** The app's routes as (method, pattern) pairs from their `:param` and `*` paths; the catch-alls left out. */
function patterns(routes: readonly RouteLike[]): Pattern[] {
  return routes
    .filter((r) => r.method !== "ALL" && r.path !== UNSERVED_ROUTE)
    .map((r) => {
      const names: string[] = [];
      const source = r.path
        .replace(/[.+?^${}()|[\]\\]/g, "\\$&")
        .replace(/:([^/]+)|\*/g, (all, name: string | undefined) => (names.push(name ?? "*"), all === "*" ? "(.*)" : "([^/]+)"));
      const params = r.hooks?.params;
      return { method: r.method, re: new RegExp(`^${source}$`), names, params: params && typeof params === "object" && Kind in params ? (params as TSchema) : undefined };
    });
}

/**
 * The methods the API serves on `path`, sorted. A parameterised route counts only where its
 * parameters are valid: `DELETE /v1/post/:postId` matches `/v1/post/q` by shape, but "q" is no
 * post id (the request is refused 400), so `/v1/post/q` is served under GET alone.
 */
function methodsServing(compiled: readonly Pattern[], path: string): string[] {
  const out = new Set<string>();
  for (const r of compiled) {
    const m = r.re.exec(path);
    if (!m) continue;
    if (r.params) {
      const values: Record<string, string> = {};
      r.names.forEach((n, i) => {
        const v = m[i + 1]!;
        try {
          values[n] = decodeURIComponent(v);
        } catch {
          values[n] = v;
        }
      });
      lowerCaseIds(values);
      if (!Value.Check(r.params, values)) continue;
    }
    out.add(r.method);
  }
  return [...out].sort();
}

/**
 * Any /v1 path or method the API does not have. Behind the credential like every /v1 route, so a
 * caller without a valid one gets 403 (spec, Authentication rule 5) and learns nothing about
 * which paths exist; with one, 405 with `Allow` for a path served under other methods, else 404.
 * Registered last: Elysia prefers every static and parameterised route to a wildcard.
 */
export function unknownApiRoutes(ctx: AppContext, routes: () => readonly RouteLike[]) {
  let compiled: Pattern[] | undefined;
  return new Elysia({ name: "unknown-api-routes" })
    .use(authPlugin(ctx))
    .all(
      UNSERVED_ROUTE,
      ({ request, path }) => {
        // The route table is complete once the app is built: its patterns are compiled on first use.
        compiled ??= patterns(routes());
        const allowed = methodsServing(compiled, path);
        if (allowed.length === 0) throw new AppError("NOT_FOUND", `No route for ${request.method} ${path}`);
        // Thrown, not answered here: the error handler adds Allow, and closes the connection when
        // the body, never read on this route, may still be arriving.
        throw new AppError("METHOD_NOT_ALLOWED", `${request.method} is not allowed on ${path} (allowed: ${allowed.join(", ")})`, { allowed });
      },
      { detail: { hide: true } },
    );
}
