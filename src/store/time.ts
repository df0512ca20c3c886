/** The service's clock. Injected everywhere time matters so tests can place events exactly. */
export interface Clock {
  now(): number; // epoch milliseconds
}
export const systemClock: Clock = { now: () => Date.now() };

export const iso = (ms: number): string => new Date(ms).toISOString();
export const isoOrUndef = (ms: number | null | undefined): string | undefined => (ms == null ? undefined : iso(ms));

/** Parses an ISO-8601 timestamp; returns undefined when it is not one. */
export function parseTime(s: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(s)) return undefined;
  const ms = Date.parse(s);
  return Number.isFinite(ms) ? ms : undefined;
}
