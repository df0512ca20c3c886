/**
 * Prints one field of the JSON read on stdin, for the README's shell examples:
 *   curl … | bun scripts/json-get.ts document.id
 * An array element is `items.1.url` or `items[1].url` (the form jq reads too, so the README's
 * blocks run unchanged with the jq `get` of the executable-alone walkthrough); `[-1]` is the
 * last. Strings print bare, anything else as JSON. When the field is missing (an error answer,
 * say), the whole input goes to stderr and the exit code is 1, so a failed step shows why at once.
 */
export {}; // a module: top-level await below

const path = process.argv[2];
if (!path) {
  console.error("usage: … | bun scripts/json-get.ts FIELD[.FIELD…] (an array element: items[1] or items.1, the last: [-1])");
  process.exit(2);
}
const text = await Bun.stdin.text();
let value: unknown;
try {
  const keys = path.replace(/\[(-?\d+)\]/g, ".$1").replace(/^\./, "").split(".");
  const step = (v: unknown, k: string) =>
    Array.isArray(v) && /^-\d+$/.test(k) ? v.at(Number(k)) : v !== null && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined;
  value = keys.reduce<unknown>(step, JSON.parse(text));
} catch {
  value = undefined;
}
if (value === undefined) {
  // `curl -s` prints nothing when it cannot connect: say what an empty answer most likely means.
  if (text.trim() === "") console.error(`json-get: no "${path}": the answer was empty (is the server running, at that address?)`);
  else console.error(`json-get: no "${path}" in: ${text.slice(0, 2000)}`);
  process.exit(1);
}
console.log(typeof value === "string" ? value : JSON.stringify(value));
