import { Elysia } from "elysia";
import type { AppContext } from "../context.ts";
import { authPlugin } from "./auth-plugin.ts";
import { AppError, errorBody, STATUS_OF } from "./errors.ts";

interface RouteLike {
  method: string;
  path: string;
}

/** Methods served at `path`, from the app's route table (its `:param` and `*` patterns). */
function methodsAt(routes: readonly RouteLike[], path: string): string[] {
  const out = new Set<string>();
  for (const r of routes) {
    if (r.method === "ALL" || r.path === "/v1/*") continue;
    const pattern = r.path.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/:[^/]+/g, "[^/]+").replace(/\*/g, ".*");
    if (new RegExp(`^${pattern}$`).test(path)) out.add(r.method);
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
  return new Elysia({ name: "unknown-api-routes" })
    .use(authPlugin(ctx))
    .all(
      "/v1/*",
      ({ request, path }) => {
        const allowed = methodsAt(routes(), path);
        if (allowed.length === 0) throw new AppError("NOT_FOUND", `No route for ${request.method} ${path}`);
        const status = STATUS_OF.METHOD_NOT_ALLOWED;
        const body = errorBody(status, `${request.method} is not allowed on ${path} (allowed: ${allowed.join(", ")})`, path, { allowed });
        return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", allow: allowed.join(", ") } });
      },
      { detail: { hide: true } },
    );
}
