import type { Db } from "../store/db.ts";

/**
 * What searches read again and again — a term's words, an organization's live chunk sets, the
 * confirmed hits of an inexact fragment — kept per connection for one state of the database.
 * The state is named by the connection's total_changes() (its own writes) and PRAGMA
 * data_version (commits by any other connection: ingestion workers, the CLI); both are read
 * inside the search's read transaction, so an entry always describes the snapshot the search
 * sees. Any write anywhere empties the cache: coarse, but it needs no bookkeeping on the write
 * path and cannot miss a change. Entries are kept least recently used first within a budget.
 */
const BUDGET = 24 << 20;

interface Entry {
  value: unknown;
  bytes: number;
}
interface State {
  version: string;
  entries: Map<string, Entry>;
  bytes: number;
}

const states = new WeakMap<Db, State>();

export interface IndexCache {
  /** The cached value for key, or build() cached (unless larger than a quarter of the budget). */
  get<T>(key: string, build: () => { value: T; bytes: number }): T;
  /** The cached value for key, if any, without building it. */
  peek<T>(key: string): T | undefined;
}

/** The cache of db for its current state. Call inside the read transaction, after a first read. */
export function indexCache(db: Db): IndexCache {
  const version = db.query<{ v: string }, []>("SELECT total_changes() || ':' || (SELECT data_version FROM pragma_data_version) AS v").get()!.v;
  let st = states.get(db);
  if (!st || st.version !== version) {
    st = { version, entries: new Map(), bytes: 0 };
    states.set(db, st);
  }
  const s = st;
  const peek = <T>(key: string): T | undefined => {
    const e = s.entries.get(key);
    if (!e) return undefined;
    s.entries.delete(key);
    s.entries.set(key, e);
    return e.value as T;
  };
  return {
    peek,
    get<T>(key: string, build: () => { value: T; bytes: number }): T {
      const hit = s.entries.get(key);
      if (hit) return peek<T>(key)!;
      const { value, bytes } = build();
      if (bytes > BUDGET / 4) return value;
      s.entries.set(key, { value, bytes });
      s.bytes += bytes;
      for (const [k, e] of s.entries) {
        if (s.bytes <= BUDGET) break;
        s.entries.delete(k);
        s.bytes -= e.bytes;
      }
      return value;
    },
  };
}
