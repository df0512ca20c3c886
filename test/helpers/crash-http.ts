/** The crash test's HTTP side: its run state, API calls with an organization's JWT, slow uploads. */
import type { OrgModel } from "./crash-model.ts";

export interface Env {
  base: string;
  stopped: boolean;
  failures: string[];
  /** Both organizations: each reads the other's ids. */
  orgs: OrgModel[];
  serial: number;
  /** Acknowledged operations so far; the kill comes right after the `killAfter`th. */
  ops: number;
  killAfter: number;
  /** Count only these operations (by name prefix, `commit`, `corpus delete`…): kill right after one, its background work pending. */
  killOn?: string;
  kill: () => void;
  /** Answers by operation and status, for the log. */
  seen: Record<string, number>;
  /** Every server's stderr so far, the running one's included. */
  serverLogs: () => string;
}

export async function call(env: Env, o: OrgModel, method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = { authorization: `Bearer ${o.token}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  const r = await fetch(env.base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(20_000) });
  const text = await r.text();
  let json: any = text;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: r.status, body: json };
}

/** The bytes in 8 pieces, 10 ms apart. */
export function trickle(b: Uint8Array): ReadableStream<Uint8Array> {
  let i = 0;
  const step = Math.ceil(b.byteLength / 8);
  return new ReadableStream({
    async pull(c) {
      if (i) await Bun.sleep(10);
      if (i >= b.byteLength) return c.close();
      c.enqueue(b.subarray(i, (i += step)));
    },
  });
}
