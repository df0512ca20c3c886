/**
 * The crash test's workload: actors send seeded random writes and reads over HTTP (crash-ops.ts)
 * and record what each acknowledged answer means in the model (crash-model.ts). Each actor owns
 * its corpora, their documents and sessions, so its part of the model is sequential. An answer
 * outside the expected statuses is a failure; a connection cut by the kill leaves the operation
 * `inflight`.
 */
import type { CorpusModel, DocModel, OrgModel } from "./crash-model.ts";
import type { Env } from "./crash-http.ts";
import { operations } from "./crash-ops.ts";
import { reads } from "./crash-reads.ts";

export interface Actor {
  env: Env;
  o: OrgModel;
  me: number;
  r: () => number;
  pick: <T>(xs: T[]) => T | undefined;
  /** Counts the answer, fails it unless its status is in `ok`, and fires the kill on its turn. */
  expect: (what: string, got: { status: number; body: unknown }, ok: number[]) => number;
  /** The actor's live corpora, and its live documents that pass `f`. */
  corpora: () => CorpusModel[];
  docs: (f: (d: DocModel) => boolean) => DocModel[];
}

export async function actor(env: Env, o: OrgModel, me: number, r: () => number): Promise<void> {
  const pick = <T>(xs: T[]) => (xs.length ? xs[Math.floor(r() * xs.length)] : undefined);
  const expect = (what: string, got: { status: number; body: unknown }, ok: number[]) => {
    const key = `${what.split(" ").slice(0, what.startsWith("corpus") ? 2 : 1).join(" ")} ${got.status}`;
    env.seen[key] = (env.seen[key] ?? 0) + 1;
    if (!ok.includes(got.status)) env.failures.push(`${o.name} ${what}: ${got.status} ${JSON.stringify(got.body).slice(0, 300)}`);
    if ((!env.killOn || what.startsWith(env.killOn)) && ++env.ops === env.killAfter) env.kill();
    return got.status;
  };
  const corpora = () => o.corpora.filter((c) => c.actor === me && !c.deleted && !c.uncertain);
  const docs = (f: (d: DocModel) => boolean) => o.docs.filter((d) => !d.uncertain && d.state !== "deleted" && corpora().some((c) => c.id === d.corpusId) && f(d));

  const a: Actor = { env, o, me, r, pick, expect, corpora, docs };
  const ops = [...operations(a), ...reads(a)];
  while (!env.stopped) {
    const weights = ops.map(([w]) => w());
    let x = r() * weights.reduce((s, w) => s + w, 0);
    const op = ops.find((_, i) => (x -= weights[i]!) < 0) ?? ops[0]!;
    try {
      await op[1]();
    } catch (e) {
      if (!env.stopped) env.failures.push(`${o.name}: request failed while the server was up: ${e}`);
      return;
    }
  }
}
