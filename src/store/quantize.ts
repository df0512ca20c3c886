/**
 * Number crunching of the in-memory vector scan (vector-scan.ts): quantisation, the coarse top-k
 * and the re-ranking dot product. Plain functions over their arguments, which the JIT compiles
 * far better than the same loops over closure variables.
 */

export const I8_MAX = 127;
/** Residuals are stored in 1/FINE steps of the int8 grid: 1/32,258 of a vector's largest component. */
export const FINE = 254;

/** Slots of the k best coarse scores (int8 dot × the slot's scale), best first. */
export function best(words: Int32Array, idxAt: number, outAt: number, n: number, scale: Float32Array, k: number): Int32Array {
  const bestScore = new Float64Array(k).fill(-Infinity);
  const bestSlot = new Int32Array(k).fill(-1);
  // Insertion into a short sorted list: most rows fail the first comparison.
  for (let i = 0; i < n; i++) {
    const slot = words[idxAt + i]!;
    const s = words[outAt + i]! * scale[slot]!;
    if (s <= bestScore[k - 1]!) continue;
    let j = k - 1;
    while (j > 0 && bestScore[j - 1]! < s) {
      bestScore[j] = bestScore[j - 1]!;
      bestSlot[j] = bestSlot[j - 1]!;
      j--;
    }
    bestScore[j] = s;
    bestSlot[j] = slot;
  }
  return bestSlot;
}

/** Σ q[i] · (coarse[i] + fine[i] / FINE): the dot product on the stored vector at residual precision. */
export function fineDot(q: Float64Array, coarse: Int8Array, at: number, fine: Int8Array, fineAt: number, dims: number): number {
  let c = 0, f = 0;
  for (let i = 0; i < dims; i++) {
    c += q[i]! * coarse[at + i]!;
    f += q[i]! * fine[fineAt + i]!;
  }
  return c + f / FINE;
}

/**
 * Writes round(v × top / max|v|) at out[at…] and returns the factor that turns the integers
 * back into the unit vector's components (cosine needs unit vectors): max|v| / top / ‖v‖, or 0
 * for a zero vector. The vector is v[from…from + dims): the load reads every row out of one
 * Float32Array of its batch, where a view per row would be an object per row.
 */
export function quantize(v: ArrayLike<number>, dims: number, top: number, out: Int8Array | Int16Array, at: number, from = 0): number {
  let max = 0, norm = 0;
  for (let i = 0; i < dims; i++) {
    const x = v[from + i]!;
    norm += x * x;
    const a = Math.abs(x);
    max = a > max ? a : max;
  }
  if (!(max > 0)) {
    out.fill(0, at, at + dims);
    return 0;
  }
  const k = top / max;
  // round(y) = floor(y + 0.5), as a truncation of a positive number: 3–4× faster here than
  // Math.round, whose -0 results for small negative values the JIT handles poorly.
  for (let i = 0; i < dims; i++) out[at + i] = ((v[from + i]! * k + (top + 0.5)) | 0) - top;
  return max / top / Math.sqrt(norm);
}

/**
 * quantize() at int8 for a stored vector, plus each value's rounding error (within ±0.5) in
 * 1/FINE steps at fine[fineAt…], for the re-ranking.
 */
export function quantizeRow(v: ArrayLike<number>, dims: number, out: Int8Array, at: number, fine: Int8Array, fineAt: number, from = 0): number {
  const s = quantize(v, dims, I8_MAX, out, at, from);
  if (!s) {
    fine.fill(0, fineAt, fineAt + dims);
    return 0;
  }
  const k = 1 / (s * Math.sqrt(norm2(v, dims, from))); // back to the int8 grid: v[i] × k = out[i] + error
  for (let i = 0; i < dims; i++) {
    const err = v[from + i]! * k - out[at + i]!;
    fine[fineAt + i] = ((err * FINE + (I8_MAX + 0.5)) | 0) - I8_MAX;
  }
  return s;
}

export function norm2(v: ArrayLike<number>, dims: number, from = 0): number {
  let n = 0;
  for (let i = from; i < from + dims; i++) n += v[i]! * v[i]!;
  return n;
}
