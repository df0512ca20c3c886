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
import { mixWords, packUuid, packUuidBytes, stringHash, unpackUuid } from "./id-words.ts";

const decoder = new TextDecoder();

/** Estimated bytes of one id kept as a string (Map entry and string), for the memory cap. */
const oddCost = (id: string) => idStringCost(id.length);
/** oddCost() of an id of `length` UTF-16 code units. */
export const idStringCost = (length: number) => 80 + 2 * length;

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
  /** The key's string when it is not a canonical UUID. */
  private keyId = "";
  /**
   * The last find() that missed, while nothing changed since: insert() of the same key takes the
   * free entry it stopped at instead of parsing and probing again (a load inserts every key
   * right after looking for it). `id` is the string find() was given (undefined after findBytes()).
   */
  private missed: { org: number; id: string | undefined; at: number; changes: number } = { org: -1, id: undefined, at: -1, changes: -1 };
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
    this.setKey(id);
    const e = this.findKey(org);
    if (e < 0) this.missed.id = id;
    return e;
  }

  /**
   * find() of the id spelled by the UTF-8 bytes b[start…end): a canonical UUID is packed straight
   * from the bytes (the load of the copy reads ids out of Arrow buffers); anything else is
   * decoded and kept as its string, as insert() would. insertFound() then adds the same key.
   */
  findBytes(org: number, b: Uint8Array, start: number, end: number): number {
    this.setKeyBytes(b, start, end);
    return this.findKey(org);
  }

  /** Adds (org, id) as `record`, which must be free and below the capacity; the key must not be held. */
  insert(record: number, org: number, id: string): void {
    const m = this.missed;
    if (m.changes !== this.changes || m.org !== org || m.id !== id) this.setKey(id);
    this.insertFound(record, org);
  }

  /**
   * Adds the key the last find() or findBytes() looked for, as `record` of `org` (the same
   * organization or another): the rules of insert().
   */
  insertFound(record: number, org: number): void {
    const m = this.missed;
    const at = m.changes === this.changes && m.org === org ? m.at : this.free(this.keyHash(org) & this.mask);
    this.changes++;
    const k = this.key, w = this.words, at4 = record * 4;
    w[at4] = k[0]!;
    w[at4 + 1] = k[1]!;
    w[at4 + 2] = k[2]!;
    w[at4 + 3] = k[3]!;
    this.org[record] = org;
    if (this.keyOdd) {
      this.odd.set(record, this.keyId);
      this.oddBytes += oddCost(this.keyId);
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

  /** Puts the id's words in `key`. */
  private setKey(id: string): void {
    this.missed.changes = -1; // the key it probed for is gone
    const k = this.key;
    this.keyOdd = !packUuid(id, k, 0);
    this.keyId = id;
    if (this.keyOdd) {
      k[0] = stringHash(id);
      k[1] = k[2] = k[3] = 0;
    }
  }

  private setKeyBytes(b: Uint8Array, start: number, end: number): void {
    if (packUuidBytes(b, start, end, this.key, 0)) {
      this.missed.changes = -1;
      this.keyOdd = false;
      this.keyId = "";
    } else this.setKey(decoder.decode(b.subarray(start, end)));
  }

  private keyHash(org: number): number {
    const k = this.key;
    return mixWords(k[0]!, k[1]!, k[2]!, k[3]!, org);
  }

  /** The record holding the key in `org`, or -1 (remembering where the probe stopped, for insertFound()). */
  private findKey(org: number): number {
    const k = this.key, w = this.words;
    for (let i = this.keyHash(org) & this.mask; ; i = (i + 1) & this.mask) {
      const e = this.table[i]!;
      if (e < 0) {
        const m = this.missed;
        m.org = org;
        m.id = undefined;
        m.at = i;
        m.changes = this.changes;
        return -1;
      }
      const at = e * 4;
      if (this.org[e] === org && w[at] === k[0] && w[at + 1] === k[1] && w[at + 2] === k[2] && w[at + 3] === k[3] && this.sameKind(e)) return e;
    }
  }

  /** Whether record e, whose words match the key, holds the same kind of id (and so the id). */
  private sameKind(e: number): boolean {
    if (!this.odd.size) return !this.keyOdd;
    const held = this.odd.get(e);
    return this.keyOdd ? held === this.keyId : held === undefined;
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
