/*
 * Chunking configuration: the document's `chunk` object, validated into a complete ChunkConfig.
 *
 * Decisions (mirroring the Python `unstructured` library's chunk_by_title / chunk_elements):
 * - raw undefined, null or {} → the platform default: by_title, max_characters 10000,
 *   new_after_n_chars 10000, overlap 0, overlap_all false, combine_text_under_n_chars 1000,
 *   multipage_sections true.
 * - Any other object: missing keys take the spec/unstructured relations: max_characters 10000 (the
 *   spec's default; unstructured's own is 500), new_after_n_chars = max_characters,
 *   combine_text_under_n_chars = max_characters (NOT 1000: that value is only the platform default
 *   for an absent/empty object), overlap 0, overlap_all false, multipage_sections true.
 * - A key whose value is null counts as absent, as Python's `None` does for these keyword arguments.
 * - `combine_text_under_n_chars` and `multipage_sections` with strategy "basic" are type-checked and
 *   then ignored: unstructured's `chunk()` dispatcher silently drops keyword arguments a strategy
 *   does not take, and a user switching strategy should not have to strip keys.
 * - Validation beyond unstructured (which clamps new_after_n_chars > max_characters instead):
 *   new_after_n_chars > max_characters is an error, as the spec asks.
 * - Bounds beyond unstructured, so a document's chunking cost stays proportional to its size:
 *   max_characters >= MIN_MAX_CHARACTERS, and an overlap above MAX_FREE_OVERLAP at most half of
 *   max_characters (see the constants). The chunk cap in index.ts bounds the rest.
 * - Sizes are counted in JavaScript string length (UTF-16 code units). This equals Python's len()
 *   except for characters outside the Basic Multilingual Plane.
 */

export type ChunkStrategy = "by_title" | "basic";

export interface ChunkConfig {
  strategy: ChunkStrategy;
  max_characters: number;
  new_after_n_chars: number;
  overlap: number;
  overlap_all: boolean;
  combine_text_under_n_chars: number;
  multipage_sections: boolean;
}

export class ChunkConfigError extends Error {
  constructor(
    public key: string,
    message: string,
  ) {
    super(message);
    this.name = "ChunkConfigError";
  }
}

export const DEFAULT_MAX_CHARACTERS = 10000;

/**
 * A chunk shorter than a typical word holds no retrievable text, and at 1 character a 300 KB text
 * made 200,001 chunks (2.7 GiB in the server). Kept this low because the chunk tests exercise
 * splitting on 5-character chunks; the per-document chunk cap (index.ts) is what bounds memory.
 */
export const MIN_MAX_CHARACTERS = 5;

/**
 * Overlap is re-read text: each text-split chunk advances by only max_characters - overlap, so
 * {max 10000, overlap 9999} emitted a 10,000-character chunk per input character (50 KB ran past
 * the 120 s limit). Above this many characters an overlap must leave at least half of each chunk
 * to new text (output at most about twice the input). Up to it any overlap below max_characters
 * is accepted: such chunks are at most 2 × 256 characters long unless overlap is at most half of
 * them anyway, so the chunk cap keeps the worst case to 50,000 × 512 characters.
 */
export const MAX_FREE_OVERLAP = 256;
export const PLATFORM_DEFAULT: Readonly<ChunkConfig> = Object.freeze({
  strategy: "by_title",
  max_characters: DEFAULT_MAX_CHARACTERS,
  new_after_n_chars: DEFAULT_MAX_CHARACTERS,
  overlap: 0,
  overlap_all: false,
  combine_text_under_n_chars: 1000,
  multipage_sections: true,
});

const KNOWN_KEYS = new Set([
  "strategy",
  "max_characters",
  "new_after_n_chars",
  "overlap",
  "overlap_all",
  "combine_text_under_n_chars",
  "multipage_sections",
]);

function describe(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (Array.isArray(v)) return "an array";
  if (v !== null && typeof v === "object") return "an object";
  return String(v);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function intKey(raw: Record<string, unknown>, key: string, min: number): number | undefined {
  const v = raw[key];
  if (v === undefined || v === null) return undefined;
  const what = min > 0 ? "a positive integer" : "a non-negative integer";
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < min) {
    throw new ChunkConfigError(key, `chunk.${key} must be ${what}, got ${describe(v)}`);
  }
  return v;
}

function boolKey(raw: Record<string, unknown>, key: string): boolean | undefined {
  const v = raw[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "boolean") {
    throw new ChunkConfigError(key, `chunk.${key} must be a boolean, got ${describe(v)}`);
  }
  return v;
}

export function parseChunkConfig(raw: unknown): ChunkConfig {
  if (raw === undefined || raw === null) return { ...PLATFORM_DEFAULT };
  if (!isPlainObject(raw)) {
    throw new ChunkConfigError("chunk", `chunk must be an object, got ${describe(raw)}`);
  }
  const keys = Object.keys(raw);
  for (const k of keys) {
    if (!KNOWN_KEYS.has(k)) {
      throw new ChunkConfigError(k, `chunk.${k} is not a known chunking key`);
    }
  }
  if (keys.every((k) => raw[k] === undefined)) return { ...PLATFORM_DEFAULT };

  let strategy: ChunkStrategy = "by_title";
  const s = raw.strategy;
  if (s !== undefined && s !== null) {
    if (s !== "by_title" && s !== "basic") {
      throw new ChunkConfigError(
        "strategy",
        `chunk.strategy must be "by_title" or "basic", got ${describe(s)}`,
      );
    }
    strategy = s;
  }

  const max = intKey(raw, "max_characters", 1) ?? DEFAULT_MAX_CHARACTERS;
  if (max < MIN_MAX_CHARACTERS) {
    throw new ChunkConfigError(
      "max_characters",
      `chunk.max_characters must be at least ${MIN_MAX_CHARACTERS}, got ${max}`,
    );
  }
  const newAfter = intKey(raw, "new_after_n_chars", 0) ?? max;
  const overlap = intKey(raw, "overlap", 0) ?? 0;
  const overlapAll = boolKey(raw, "overlap_all") ?? false;
  const combine = intKey(raw, "combine_text_under_n_chars", 0) ?? max;
  const multipage = boolKey(raw, "multipage_sections") ?? true;

  if (newAfter > max) {
    throw new ChunkConfigError(
      "new_after_n_chars",
      `chunk.new_after_n_chars must not exceed chunk.max_characters, got ${newAfter} > ${max}`,
    );
  }
  if (overlap >= max) {
    throw new ChunkConfigError(
      "overlap",
      `chunk.overlap must be less than chunk.max_characters, got ${overlap} >= ${max}`,
    );
  }
  if (overlap > MAX_FREE_OVERLAP && overlap * 2 > max) {
    throw new ChunkConfigError(
      "overlap",
      `chunk.overlap above ${MAX_FREE_OVERLAP} must be at most half of chunk.max_characters, got ${overlap} with max_characters ${max}`,
    );
  }
  if (strategy === "by_title" && combine > max) {
    throw new ChunkConfigError(
      "combine_text_under_n_chars",
      `chunk.combine_text_under_n_chars must not exceed chunk.max_characters, got ${combine} > ${max}`,
    );
  }

  return {
    strategy,
    max_characters: max,
    new_after_n_chars: newAfter,
    overlap,
    overlap_all: overlapAll,
    combine_text_under_n_chars: strategy === "basic" ? 0 : combine,
    multipage_sections: strategy === "basic" ? true : multipage,
  };
}
