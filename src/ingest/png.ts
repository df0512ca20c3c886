/**
 * PNG encoding of opaque preview tiles. The canvas library's encoder always writes RGBA with one
 * fixed filter: for a rendered text page (grey glyphs on white) that is 4 bytes per pixel of
 * which 3 repeat and the alpha never varies, and tiles came out ~11× larger than needed
 * (1024×1449 text page: 290 KB against 26 KB here). Pages are filled white before rendering, so
 * alpha carries nothing; a page whose pixels are all grey is written as 8-bit greyscale,
 * anything else as 8-bit RGB, each row with the filter PNG encoders conventionally pick (the
 * smallest sum of absolute differences).
 */
import { crc32, deflateSync } from "node:zlib";

const SIGNATURE = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]);
const GREY = 0;
const RGB = 2;

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const v = new DataView(out.buffer);
  v.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  v.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

const cost = (row: Uint8Array) => {
  let s = 0;
  for (let i = 0; i < row.length; i++) {
    const v = row[i]!;
    s += v < 128 ? v : 256 - v;
  }
  return s;
};

/** Encodes RGBA pixels (alpha ignored) as a greyscale or RGB PNG. */
export function encodeOpaquePng(rgba: Uint8Array | Uint8ClampedArray, width: number, height: number, level = 6): Uint8Array {
  let grey = true;
  for (let i = 0; i < rgba.length && grey; i += 4) grey = rgba[i] === rgba[i + 1] && rgba[i] === rgba[i + 2];
  const bpp = grey ? 1 : 3;
  const stride = width * bpp;
  const raw = new Uint8Array((stride + 1) * height);
  let prev = new Uint8Array(stride);
  let cur = new Uint8Array(stride);
  const rows = [0, 1, 2, 3, 4].map(() => new Uint8Array(stride));
  const [none, sub, up, avg, paeth] = rows as [Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array];
  for (let y = 0; y < height; y++) {
    const src = y * width * 4;
    if (grey) for (let x = 0; x < width; x++) cur[x] = rgba[src + x * 4]!;
    else {
      for (let x = 0, o = 0, s = src; x < width; x++, o += 3, s += 4) {
        cur[o] = rgba[s]!;
        cur[o + 1] = rgba[s + 1]!;
        cur[o + 2] = rgba[s + 2]!;
      }
    }
    for (let i = 0; i < stride; i++) {
      const x = cur[i]!;
      const a = i >= bpp ? cur[i - bpp]! : 0;
      const b = prev[i]!;
      const c = i >= bpp ? prev[i - bpp]! : 0;
      none[i] = x;
      sub[i] = x - a;
      up[i] = x - b;
      avg[i] = x - ((a + b) >> 1);
      const p = a + b - c;
      const pa = p > a ? p - a : a - p;
      const pb = p > b ? p - b : b - p;
      const pc = p > c ? p - c : c - p;
      paeth[i] = x - (pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
    }
    let best = 0;
    let bestCost = Infinity;
    for (let f = 0; f < 5; f++) {
      const c = cost(rows[f]!);
      if (c < bestCost) [best, bestCost] = [f, c];
    }
    const at = y * (stride + 1);
    raw[at] = best;
    raw.set(rows[best]!, at + 1);
    [prev, cur] = [cur, prev];
  }
  const ihdr = new Uint8Array(13);
  const v = new DataView(ihdr.buffer);
  v.setUint32(0, width);
  v.setUint32(4, height);
  ihdr[8] = 8;
  ihdr[9] = grey ? GREY : RGB;
  const parts = [SIGNATURE, chunk("IHDR", ihdr), chunk("IDAT", deflateSync(raw, { level })), chunk("IEND", new Uint8Array(0))];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}
