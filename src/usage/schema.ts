import { t } from "elysia";
import { Timestamp, USER_ID_MAX } from "../http/paging.ts";
import { DEFAULT_TIMEFRAME, TIMEFRAMES } from "./buckets.ts";

/** Validated by the route (usage/routes.ts) so the 400 names the parameter and its values. */
export const UsageQuery = t.Object({
  timeframe: t.Optional(
    t.String({
      title: "timeframe",
      enum: [...TIMEFRAMES],
      description: `Day (30 daily buckets), Week (12 ISO weeks), Month (12 calendar months) or Year (5 calendar years); default ${DEFAULT_TIMEFRAME}`,
    }),
  ),
});

const Counts = t.Object({ created: t.Integer(), removed: t.Integer() });

const Counter = t.Object({
  total: t.Integer({ description: "Lifetime amount created as of `timestamp`, soft-deleted rows and the bucket in progress included" }),
  live: t.Integer({ description: "Lifetime created minus removed as of `timestamp` (additive field)" }),
  created: t.Integer({ description: "Created within [from, to)" }),
  removed: t.Integer({ description: "Removed within [from, to)" }),
});

export const UsageBucket = t.Object({
  from: Timestamp("Bucket start (inclusive)"),
  to: Timestamp("Bucket end (exclusive)"),
  tokens: t.Integer(),
  corpora: t.Optional(Counts),
  sessions: Counts,
  posts: Counts,
  storage: Counts,
});

export const UsageReport = t.Object({
  timeframe: t.UnionEnum([...TIMEFRAMES]),
  from: Timestamp("Start (inclusive) of the oldest bucket"),
  to: Timestamp("Start of the bucket in progress: exclusive end of the newest completed bucket"),
  organizationId: t.String({ format: "uuid" }),
  timestamp: Timestamp("Server time of computation, inside the bucket in progress"),
  tokens: t.Object({ total: t.Integer(), inPeriod: t.Integer() }),
  corpora: t.Nullable(Counter, { description: "Organization scope only; null (and absent from every bucket) elsewhere" }),
  sessions: Counter,
  posts: Counter,
  storage: t.Object(Counter.properties, { description: "Bytes" }),
  series: t.Array(UsageBucket, { description: "Completed buckets, oldest first, contiguous, empty ones with zeros" }),
});

export const UserParams = t.Object({ userId: t.String({ minLength: 1, maxLength: USER_ID_MAX }) });
export const CorpusParams = t.Object({ corpusId: t.String({ format: "uuid" }) });
