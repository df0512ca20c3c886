/** Identifiers are UUIDv4 strings (spec). */
export const newId = (): string => crypto.randomUUID();

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: string): boolean => UUID_RE.test(s);

let lastMs = 0;
let counter = 0;
/**
 * A valid UUIDv4 whose leading bits are a timestamp and a counter, so ids made later sort
 * later. Chunks use it: the spec orders chunks "by first page, then by id", and we want that
 * to be reading order. The remaining 62 bits stay random, so ids are still unguessable enough
 * to never collide.
 */
export function orderedId(): string {
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    counter = 0;
  } else counter++;
  const ms = lastMs + Math.floor(counter / 4096);
  const seq = counter % 4096;
  const rnd = crypto.getRandomValues(new Uint8Array(8));
  const t = ms.toString(16).padStart(12, "0").slice(-12);
  const s = seq.toString(16).padStart(3, "0");
  const r = Array.from(rnd, (b) => b.toString(16).padStart(2, "0")).join("");
  const variant = ((parseInt(r[0]!, 16) & 0x3) | 0x8).toString(16);
  return `${t.slice(0, 8)}-${t.slice(8, 12)}-4${s}-${variant}${r.slice(1, 4)}-${r.slice(4, 16)}`;
}
