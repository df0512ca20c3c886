import type { Db } from "../store/db.ts";

/**
 * What searches read again and again — a term's words, an organization's live chunk sets, the
 * grouped match, the confirmed hits of an inexact fragment — kept per connection and per
 * organization for one value of the organization's change counter (chunk_epochs, epochs-sql.ts:
 * bumped by triggers on every write to its chunks or to the liveness columns of its documents).
 * The counter is read inside the search's read transaction, so an entry always describes the
 * snapshot the search sees, whichever connection or process wrote; writes elsewhere (other
 * organizations, usage, sessions) leave the entries alone. Entries are kept least recently used
 * first within one budget for all organizations.
 */
const BUDGET = 24 << 20;

interface Entry {
  value: unknown;
  bytes: number;
}
interface State {
  /** Counter value per organization key the entries were built for. */
  versions: Map<number, number>;
  /** Keyed by organization key, NUL, then what. */
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

/** The cache of db for one organization in its current state. Call inside the read transaction. */
export function indexCache(db: Db, orgKey: number): IndexCache {
  const version = db.query<{ v: number }, [number]>("SELECT v FROM chunk_epochs WHERE org_key = ?").get(orgKey)?.v ?? 0;
  let s = states.get(db);
  if (!s) states.set(db, (s = { versions: new Map(), entries: new Map(), bytes: 0 }));
  const st = s;
  const prefix = `${orgKey}\0`;
  if (st.versions.get(orgKey) !== version) {
    for (const [k, e] of st.entries) if (k.startsWith(prefix)) st.entries.delete(k), (st.bytes -= e.bytes);
    st.versions.set(orgKey, version);
  }
  const peek = <T>(key: string): T | undefined => {
    const e = st.entries.get(prefix + key);
    if (!e) return undefined;
    st.entries.delete(prefix + key);
    st.entries.set(prefix + key, e);
    return e.value as T;
  };
  return {
    peek,
    get<T>(key: string, build: () => { value: T; bytes: number }): T {
      if (st.entries.has(prefix + key)) return peek<T>(key)!;
      const { value, bytes } = build();
      if (bytes > BUDGET / 4) return value;
      st.entries.set(prefix + key, { value, bytes });
      st.bytes += bytes;
      for (const [k, e] of st.entries) {
        if (st.bytes <= BUDGET) break;
        st.entries.delete(k);
        st.bytes -= e.bytes;
      }
      return value;
    },
  };
}
