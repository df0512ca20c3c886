import { Elysia } from "elysia";
import type { AppContext } from "../context.ts";
import { authPlugin } from "../http/auth-plugin.ts";
import { AppError, badRequest } from "../http/errors.ts";
import { confinedTo } from "../auth/jwt.ts";
import { DEFAULT_TIMEFRAME, isTimeframe, TIMEFRAMES, type Timeframe } from "./buckets.ts";
import { CorpusParams, UsageQuery, UsageReport, UserParams } from "./schema.ts";
import type { UsageService } from "./service.ts";

function timeframeOf(q: { timeframe?: string }): Timeframe {
  if (q.timeframe === undefined) return DEFAULT_TIMEFRAME;
  if (!isTimeframe(q.timeframe)) {
    throw badRequest(`Invalid query parameter 'timeframe': must be one of ${TIMEFRAMES.join(", ")}, or omitted for ${DEFAULT_TIMEFRAME} (got ${JSON.stringify(q.timeframe.slice(0, 40))})`);
  }
  return q.timeframe;
}

const USER_PATH = "/v1/usage/user/";

/**
 * The path's user id must be percent-encoded UTF-8, as query values must (query-once.ts): Elysia
 * turns a byte that is not (`%E9`, a Latin-1 "é") into U+FFFD, and the report was then that of
 * the user "\uFFFD" with a 200, not of the user the client named.
 */
function checkUserPath(path: string): void {
  const raw = path.slice(path.indexOf(USER_PATH) + USER_PATH.length).replace(/\/$/, "");
  try {
    decodeURIComponent(raw);
  } catch {
    throw badRequest(`Invalid path parameter 'userId': not valid percent-encoded UTF-8 (got ${JSON.stringify(raw.slice(0, 40))})`);
  }
}

export function usageRoutes(ctx: AppContext, usage: UsageService) {
  return new Elysia({ prefix: "/v1/usage", detail: { tags: ["Usage"] } })
    .use(authPlugin(ctx))
    .get("/all", ({ principal, query }) => usage.organization(principal.orgId, timeframeOf(query)), {
      query: UsageQuery,
      response: UsageReport,
      detail: { summary: "Organization-wide usage over the completed buckets of a timeframe" },
    })
    .get(
      "/user/:userId",
      ({ principal, params, query }) => {
        // A token minted for another user (a widget visitor) acts as that user: the usage of the
        // organization's other users is not its to read.
        const own = confinedTo(principal);
        if (own !== undefined && params.userId !== own) {
          throw new AppError("FORBIDDEN", `This access token was issued for user "${own}" and reads only that user's usage`);
        }
        return usage.user(principal.orgId, params.userId, timeframeOf(query));
      },
      {
        // Before validation: with a trailing slash Elysia reads such a path's id as null, and the
        // refusal then said "must be a string … (got null)".
        transform: ({ path }) => checkUserPath(path),
        params: UserParams,
        query: UsageQuery,
        response: UsageReport,
        detail: { summary: "Usage of one user of the organization (corpora is null; zeros for a user without events)" },
      },
    )
    .get("/corpus/:corpusId", ({ principal, params, query }) => usage.corpus(principal.orgId, params.corpusId, timeframeOf(query)), {
      params: CorpusParams,
      query: UsageQuery,
      response: UsageReport,
      detail: { summary: "Usage of one corpus (corpora is null; tokens count posts only)" },
    });
}
