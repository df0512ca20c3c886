/**
 * Fuzz cases for the presigned storage URLs, which the OpenAPI document publishes without a
 * schema (their query is the signature): built from real URLs of the world (fuzz-world.ts).
 */
import type { Case } from "./fuzz-cases.ts";
import type { World } from "./fuzz-world.ts";

/**
 * The presigned storage URLs: every part of the signed query missing, changed or repeated, the
 * object key changed, the declared Content-Type not sent. None of these may be served; the
 * unchanged upload runs last, as it uses the URL up.
 */
export function storageCases(w: World, rnd: () => number): Case[] {
  const cases: Case[] = [];
  const of = (method: string, base: string, headers: Record<string, string>, body?: string) => {
    const u = new URL(base);
    const path = u.pathname;
    const params = [...u.searchParams.entries()];
    const enc = (ps: [string, string][]) => ps.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("&");
    const add = (label: string, url: string, h = headers) => cases.push({ op: `${method} /storage/*`, label, method, url, headers: h, body, invalid: true });
    for (const [i, [name, value]] of params.entries()) {
      const rest = params.filter((_, j) => j !== i);
      add(`${name} missing`, `${path}?${enc(rest)}`);
      add(`${name} empty`, `${path}?${enc([...rest, [name, ""]])}`);
      const flipped = value.slice(0, -1) + (value.endsWith("0") ? "1" : "0");
      add(`${name} changed`, `${path}?${enc([...rest, [name, flipped]])}`);
      // The signed value is the first; a later repeat is ignored (a judgment call, not refused).
      if (method === "GET") cases.push({ op: `GET /storage/*`, label: `${name} repeated with another value`, method, url: `${path}?${enc([...params, [name, flipped]])}`, headers, body });
      add(`${name} 12k characters`, `${path}?${enc([...rest, [name, "9".repeat(12_000)]])}`);
    }
    const q = `?${enc(params)}`;
    const other = w.ids.doc.other;
    for (const [label, p] of [
      ["another document's key", path.replace(/docs\/[^/]+/, `docs/${other}`)], ["parent directory", path.replace(/\/[^/]+$/, "/..%2F..%2Fkbqa.sqlite")],
      ["NUL in the key", path + "%00"], ["bad escape in the key", path + "%zz"], ["trailing slash", path + "/"], ["random key", `/storage/${uuidLike(rnd)}`],
    ] as const) add(label, p + q);
    return { path, q };
  };
  of("GET", w.storage.download, { accept: "application/json" });
  cases.push({ op: "GET /storage/*", label: "valid request", method: "GET", url: w.storage.download.slice(w.k.url.length), headers: {}, base: true });
  const { path, q } = of("PUT", w.storage.upload, { "content-type": "text/markdown" }, "# uploaded\n");
  const put = (label: string, headers: Record<string, string>, body: string, invalid = true) =>
    cases.push({ op: "PUT /storage/*", label, method: "PUT", url: path + q, headers, body, invalid });
  put("no Content-Type", {}, "x");
  put("another Content-Type", { "content-type": "text/plain" }, "x");
  put("Content-Type with parameters", { "content-type": "text/markdown; charset=latin1" }, "x", false);
  cases.push({ op: "PUT /storage/*", label: "valid request", method: "PUT", url: path + q, headers: { "content-type": "text/markdown" }, body: "# uploaded\n", base: true });
  put("replayed", { "content-type": "text/markdown" }, "# again\n");
  return cases;
}

const uuidLike = (rnd: () => number) => Array.from({ length: 4 }, () => Math.floor(rnd() * 2 ** 32).toString(16)).join("-");
