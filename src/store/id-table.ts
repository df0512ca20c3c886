/**
 * A set of (organization, id) keys, each held as a caller-chosen record number, over typed
 * arrays: the key's id as four words (id-words.ts) and its organization as a small integer, found
 * through an open-addressing hash table of record numbers. The in-memory vector copy keeps one
 * for its rows (record = slot) and one for its documents; a Map keyed by "org/id" strings cost
 * hundreds of bytes per key where this costs 20 plus the table's 8–16.
 *
 * Linear probing at a load of at most ½, and deletion by shifting the following entries back
 * instead of leaving tombstones: rows are deleted and added all the time, and tombstones would
 * lengthen every probe until a rebuild.
 */
import { mixWords, packUuid, stringHash, unpackUuid } from "./id-words.ts";

/** Estimated bytes of one id kept as a string (Map entry and string), for the memory cap. */
const oddCost = (id: string) => 80 + 2 * id.length;

export class IdTable {
  /** Per record: the id's four words. */
  words = new Int32Array(0);
  /** Per record: the organization. */
  org = new Int32Array(0);
  /** Ids that are not canonical UUIDs, by record; their words are a hash of the string. */
  private readonly odd = new Map<number, string>();
  private oddBytes = 0;
  private table = new Int32Array(16).fill(-1);
  private mask = 15;
  private readonly key = new Int32Array(4);
  private readonly spare = new Int32Array(4); // extraFor() leaves the key of the last find() alone
  private keyOdd = false;
  /**
   * The last find() that missed, while nothing changed since: insert() of the same key takes the
   * free entry it stopped at instead of parsing and probing again (a load inserts every key
   * right after looking for it).
   */
  private missed: { org: number; id: string; at: number; changes: number } = { org: -1, id: "", at: -1, changes: -1 };
  private changes = 0;

  /** Bytes held. */
  get bytes(): number {
    return this.words.byteLength + this.org.byteLength + this.table.byteLength + this.oddBytes;
  }

  /** Bytes held at `records` capacity with the same ids kept as strings. */
  bytesAt(records: number): number {
    return records * 20 + tableSize(records) * 4 + this.oddBytes;
  }

  /** Bytes that holding `id` would add beyond its record's share of bytesAt(). */
  extraFor(id: string): number {
    return packUuid(id, this.spare, 0) ? 0 : oddCost(id);
  }

  /** extraFor() of the id the last find() looked for, which parsed it already. */
  extraForFound(id: string): number {
    return this.keyOdd ? oddCost(id) : 0;
  }

  /** Room for record numbers below `records`; never shrinks. */
  resize(records: number): void {
    if (records * 4 <= this.words.length) return;
    this.changes++;
    const words = new Int32Array(records * 4);
    words.set(this.words);
    const org = new Int32Array(records);
    org.set(this.org);
    this.words = words;
    this.org = org;
    const old = this.table;
    this.table = new Int32Array(tableSize(records)).fill(-1);
    this.mask = this.table.length - 1;
    for (const e of old) if (e >= 0) this.table[this.free(this.home(e))] = e;
  }

  /** The record holding (org, id), or -1. */
  find(org: number, id: string): number {
    const h = this.parse(org, id);
    const k = this.key, w = this.words;
    for (let i = h & this.mask; ; i = (i + 1) & this.mask) {
      const e = this.table[i]!;
      if (e < 0) {
        const m = this.missed;
        m.org = org;
        m.id = id;
        m.at = i;
        m.changes = this.changes;
        return -1;
      }
      const at = e * 4;
      if (this.org[e] === org && w[at] === k[0] && w[at + 1] === k[1] && w[at + 2] === k[2] && w[at + 3] === k[3] && this.sameKind(e, id)) return e;
    }
  }

  /** Adds (org, id) as `record`, which must be free and below the capacity; the key must not be held. */
  insert(record: number, org: number, id: string): void {
    const m = this.missed;
    const at = m.changes === this.changes && m.org === org && m.id === id ? m.at : this.free(this.parse(org, id) & this.mask);
    this.changes++;
    this.words.set(this.key, record * 4);
    this.org[record] = org;
    if (this.keyOdd) {
      this.odd.set(record, id);
      this.oddBytes += oddCost(id);
    }
    this.table[at] = record;
  }

  remove(record: number): void {
    this.changes++;
    let i = this.home(record);
    while (this.table[i] !== record) i = (i + 1) & this.mask;
    // Entries after the hole that could sit in it move back, so probes never stop early.
    for (let j = i; ;) {
      this.table[i] = -1;
      for (;;) {
        j = (j + 1) & this.mask;
        const e = this.table[j]!;
        if (e < 0) {
          this.forget(record);
          return;
        }
        const k = this.home(e);
        if (j > i ? k <= i || k > j : k <= i && k > j) {
          this.table[i] = e;
          i = j;
          break;
        }
      }
    }
  }

  idOf(record: number): string {
    return this.odd.size ? (this.odd.get(record) ?? unpackUuid(this.words, record * 4)) : unpackUuid(this.words, record * 4);
  }

  private forget(record: number) {
    const id = this.odd.get(record);
    if (id === undefined) return;
    this.odd.delete(record);
    this.oddBytes -= oddCost(id);
  }

  /** Puts the id's words in `key` and returns the key's hash. */
  private parse(org: number, id: string): number {
    this.missed.changes = -1; // the key it probed for is gone
    const k = this.key;
    this.keyOdd = !packUuid(id, k, 0);
    if (this.keyOdd) {
      k[0] = stringHash(id);
      k[1] = k[2] = k[3] = 0;
    }
    return mixWords(k[0]!, k[1]!, k[2]!, k[3]!, org);
  }

  /** Whether record e, whose words match the parsed key, holds the same kind of id (and so the id). */
  private sameKind(e: number, id: string): boolean {
    if (!this.odd.size) return !this.keyOdd;
    const held = this.odd.get(e);
    return this.keyOdd ? held === id : held === undefined;
  }

  private home(e: number): number {
    const w = this.words, at = e * 4;
    return mixWords(w[at]!, w[at + 1]!, w[at + 2]!, w[at + 3]!, this.org[e]!) & this.mask;
  }

  private free(i: number): number {
    while (this.table[i]! >= 0) i = (i + 1) & this.mask;
    return i;
  }
}

/** Entries of the hash table for `records` keys: a power of two, at least twice as many. */
function tableSize(records: number): number {
  let n = 16;
  while (n < records * 2) n *= 2;
  return n;
}
