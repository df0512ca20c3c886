/**
 * The VectorIndex the server hands out: one LanceDB table answers searches (the active one),
 * and while a rebuild for a new embedding model runs, a second table receives every write too,
 * so the moment the rebuild ends the new table is complete and can take over (promote()).
 *
 * Vectors are only comparable within one model. Writers pass vectors of the CONFIGURED model
 * (models.embedder()); the table built by another model gets the same rows re-embedded with
 * its own model. Questions are embedded by queryEmbedder(), which uses the active table's
 * model and remembers which table each vector was made for, so a search that straddles the
 * switch still compares like with like.
 */
import type { Embedder } from "../models/types.ts";
import type { LanceIndex } from "./lance.ts";
import type { VectorHit, VectorIndex, VectorRecord } from "./vector.ts";

export interface Slot {
  embedderId: string;
  index: LanceIndex;
  /** Absent when that model is no longer installed: the table then serves full-text search only. */
  embedder?: Embedder;
}

export interface IndexStatus {
  state: "ready" | "rebuilding";
  /** Embedding model of the table searches read. */
  active: string;
  /** Embedding model being built, while rebuilding. */
  building?: string;
  done: number;
  total: number;
}

export interface SwitchingIndex extends LanceIndex {
  queryEmbedder(): Embedder;
  status(): IndexStatus;
  readonly building: Slot | undefined;
  readonly active: Slot;
  setProgress(done: number, total: number): void;
  /** Makes the building table the active one (in memory); returns the old active slot. */
  promote(): Slot;
  /** Stops writing to the building table; returns it. */
  abandon(): Slot | undefined;
  /** Waits for operations still using a slot that left service, then closes it. */
  release(slot: Slot): Promise<void>;
}

const EMBED_BATCH = 32;

export function createSwitchingIndex(o: {
  configuredId: string;
  active: Slot;
  building?: Slot;
  progress?: { done: number; total: number };
  /** Runs first on close (stops the rebuild loop). */
  beforeClose?: () => Promise<void>;
}): SwitchingIndex {
  let active = o.active;
  let building = o.building;
  let progress = o.progress ?? { done: 0, total: 0 };
  const inflight = new Map<Slot, Set<Promise<unknown>>>();
  const released = new Set<Slot>();
  const madeFor = new WeakMap<Float32Array, Slot>();

  const track = <T>(slot: Slot, p: Promise<T>): Promise<T> => {
    let set = inflight.get(slot);
    if (!set) inflight.set(slot, (set = new Set()));
    set.add(p);
    const done = () => set!.delete(p);
    p.then(done, done);
    return p;
  };
  const writeSlots = () => (building ? [active, building] : [active]);
  const configuredSlot = () => (building?.embedderId === o.configuredId ? building : active);

  /** The records as this slot's model would have embedded them. */
  const recordsFor = async (slot: Slot, records: VectorRecord[]): Promise<VectorRecord[]> => {
    if (slot.embedderId === o.configuredId || !records.length) return records;
    const out: VectorRecord[] = [];
    for (let i = 0; i < records.length; i += EMBED_BATCH) {
      const part = records.slice(i, i + EMBED_BATCH);
      const vs = slot.embedder
        ? await slot.embedder.embed(part.map((r) => r.text), "passage")
        : part.map(() => placeholder(slot.index.dims));
      part.forEach((r, j) => out.push({ ...r, vector: vs[j]! }));
    }
    return out;
  };
  const everyTable = (fn: (ix: LanceIndex, slot: Slot) => Promise<void>) =>
    Promise.all(writeSlots().map((s) => track(s, fn(s.index, s)))).then(() => {});

  const self: SwitchingIndex = {
    get tableName() { return active.index.tableName; },
    get dims() { return active.index.dims; },
    get active() { return active; },
    get building() { return building; },
    add: (records) => everyTable(async (ix, s) => ix.add(await recordsFor(s, records))),
    replaceDocument: (orgId, documentId, records) =>
      everyTable(async (ix, s) => ix.replaceDocument(orgId, documentId, await recordsFor(s, records))),
    deleteDocument: (orgId, documentId, generation?: number) => everyTable((ix) => ix.deleteDocument(orgId, documentId, generation)),
    deleteDocuments: (orgId, documentIds) => everyTable((ix) => ix.deleteDocuments(orgId, documentIds)),
    deleteChunks: (orgId, chunkIds) => everyTable((ix) => ix.deleteChunks(orgId, chunkIds)),
    countDocument: (orgId, documentId, generation) => track(active, active.index.countDocument(orgId, documentId, generation)),
    count: () => track(active, active.index.count()),
    texts: (ids) => track(active, active.index.texts(ids)),
    async searchVector(orgId, corpusIds, vector, limit): Promise<VectorHit[]> {
      // Untagged vectors come from models.embedder(), i.e. the configured model.
      const slot = madeFor.get(vector) ?? configuredSlot();
      if (released.has(slot) || vector.length !== slot.index.dims) return [];
      return track(slot, slot.index.searchVector(orgId, corpusIds, vector, limit));
    },
    searchText: (orgId, corpusIds, query, limit) => {
      const slot = active;
      return track(slot, slot.index.searchText(orgId, corpusIds, query, limit));
    },
    optimize: () => everyTable((ix) => ix.optimize()),
    ensureVectorIndex: (minRows) => track(active, active.index.ensureVectorIndex(minRows)),
    vectorCopyReady: () => track(active, active.index.vectorCopyReady()),
    textStatsReady: () => track(active, active.index.textStatsReady()),
    queryEmbedder(): Embedder {
      const slot = active.embedder ? active : configuredSlot();
      const e = slot.embedder!;
      return {
        id: e.id,
        dims: e.dims,
        async embed(texts, kind) {
          const vs = await e.embed(texts, kind);
          for (const v of vs) madeFor.set(v, slot);
          return vs;
        },
      };
    },
    status: () => ({
      state: building ? "rebuilding" : "ready",
      active: active.embedderId,
      ...(building ? { building: building.embedderId } : {}),
      ...progress,
    }),
    setProgress(done, total) {
      progress = { done, total };
    },
    promote() {
      if (!building) throw new Error("nothing to promote");
      const old = active;
      active = building;
      building = undefined;
      return old;
    },
    abandon() {
      const b = building;
      building = undefined;
      progress = { done: 0, total: 0 };
      return b;
    },
    async release(slot) {
      if (released.has(slot)) return;
      released.add(slot);
      await Promise.allSettled([...(inflight.get(slot) ?? [])]);
      await slot.index.close();
    },
    async close() {
      await o.beforeClose?.();
      for (const s of new Set([active, ...(building ? [building] : [])])) await self.release(s);
    },
  };
  return self;
}

/** A unit vector: rows written for a model that is gone stay findable by full text. */
function placeholder(dims: number): Float32Array {
  const v = new Float32Array(dims);
  v[0] = 1;
  return v;
}

/** The embedder for questions: the active table's model when the index is a switching one. */
export function queryEmbedderOf(vectors: VectorIndex, fallback: () => Embedder): Embedder {
  const q = (vectors as Partial<SwitchingIndex>).queryEmbedder;
  return q ? q.call(vectors) : fallback();
}

export function indexStatusOf(vectors: VectorIndex | undefined): IndexStatus | undefined {
  const s = (vectors as Partial<SwitchingIndex> | undefined)?.status;
  return s ? s.call(vectors) : undefined;
}
