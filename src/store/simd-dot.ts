/**
 * A WebAssembly SIMD kernel for the in-memory vector scan (vector-scan.ts): int8 stored vectors
 * against an int16 query, 16 dimensions per step. JavaScript has no SIMD, and a scalar loop over
 * 100,000 × 384 values takes longer than LanceDB's own search; this kernel takes a few
 * milliseconds. The module is small enough to be written out here as bytes, so no toolchain or
 * binary file is involved; its correctness is checked against a scalar loop in the tests.
 *
 * dot(q, idx, n, base, stride, out), all byte offsets into the imported memory:
 *   for i < n:  out[i] = Σ_j  i16(q[j]) · i8(vec[idx[i]][j])   (j < stride, in i32)
 * where vec[s] starts at base + s × stride. `stride` is a positive multiple of 16 and the query
 * is stride int16 values. The caller bounds the values so the i32 sums cannot overflow.
 */

const leb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
};
const vec = (bytes: number[]): number[] => [...leb(bytes.length), ...bytes];
const str = (s: string): number[] => vec([...new TextEncoder().encode(s)]);
const section = (id: number, bytes: number[]): number[] => [id, ...vec(bytes)];

// Opcodes (core and SIMD proposal).
const BLOCK = 0x02, LOOP = 0x03, END = 0x0b, BR = 0x0c, BR_IF = 0x0d, VOID = 0x40;
const GET = 0x20, SET = 0x21, TEE = 0x22;
const I32_LOAD = 0x28, I32_STORE = 0x36, I32_CONST = 0x41;
const I32_GE_U = 0x4f, I32_LT_U = 0x49, I32_ADD = 0x6a, I32_MUL = 0x6c, I32_SHL = 0x74;
const simd = (op: number) => [0xfd, ...leb(op)];
const V128_LOAD = (offset: number) => [...simd(0x00), 0x00, ...leb(offset)]; // align 1: rows need not be 16-aligned
const V128_ZERO = [...simd(0x0c), ...new Array(16).fill(0)];
const EXTEND_LOW_I8 = simd(0x87), EXTEND_HIGH_I8 = simd(0x88);
const DOT_I16 = simd(0xba), I32X4_ADD = simd(0xae);
const LANE = (l: number) => [...simd(0x1b), l];

// Locals: params 0..5, then i, p (row pointer), e (row end), qp (query pointer), acc, d.
const [Q, IDX, N, BASE, STRIDE, OUT, I, P, E, QP, ACC, D] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
const at4 = (base: number, index: number) => [GET, base, GET, index, I32_CONST, 2, I32_SHL, I32_ADD];
// acc += dot(low 8 of d, query[qp + off]) + dot(high 8 of d, query[qp + off + 16]), d = row[p + off / 2]
const step = (off: number) => [
  GET, P, ...V128_LOAD(off / 2), SET, D,
  GET, ACC,
  GET, D, ...EXTEND_LOW_I8, GET, QP, ...V128_LOAD(off), ...DOT_I16, ...I32X4_ADD,
  GET, D, ...EXTEND_HIGH_I8, GET, QP, ...V128_LOAD(off + 16), ...DOT_I16, ...I32X4_ADD,
  SET, ACC,
];

const body = [
  2, 4, 0x7f, 2, 0x7b, // locals: 4 × i32, 2 × v128
  BLOCK, VOID,
  LOOP, VOID,
  GET, I, GET, N, I32_GE_U, BR_IF, 1,
  ...at4(IDX, I), I32_LOAD, 2, 0, GET, STRIDE, I32_MUL, GET, BASE, I32_ADD, TEE, P, GET, STRIDE, I32_ADD, SET, E,
  GET, Q, SET, QP,
  ...V128_ZERO, SET, ACC,
  LOOP, VOID, // 32 dimensions per turn
  ...step(0), ...step(32),
  GET, QP, I32_CONST, 0xc0, 0x00, I32_ADD, SET, QP, // i32.const takes signed LEB128: 64 is 0xc0 0x00
  GET, P, I32_CONST, 32, I32_ADD, TEE, P, GET, E, I32_LT_U, BR_IF, 0,
  END,
  ...at4(OUT, I),
  GET, ACC, ...LANE(0), GET, ACC, ...LANE(1), I32_ADD, GET, ACC, ...LANE(2), I32_ADD, GET, ACC, ...LANE(3), I32_ADD,
  I32_STORE, 2, 0,
  GET, I, I32_CONST, 1, I32_ADD, SET, I,
  BR, 0,
  END,
  END,
  END,
];

const MODULE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  // Each section: its entry count, then the entries.
  ...section(1, [1, 0x60, 6, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0]), // type 0: (i32 × 6) → ()
  ...section(2, [1, ...str("e"), ...str("m"), 0x02, 0x00, 0x01]), // import memory e.m, min 1 page
  ...section(3, [1, 0]), // function 0 has type 0
  ...section(7, [1, ...str("dot"), 0x00, 0]), // export function 0 as "dot"
  ...section(10, [1, ...vec(body)]),
]);

export type DotKernel = (q: number, idx: number, n: number, base: number, stride: number, out: number) => void;

let compiled: WebAssembly.Module | null | undefined;

/** The kernel bound to this memory, or undefined where WebAssembly SIMD is unavailable. */
export function dotKernel(memory: WebAssembly.Memory): DotKernel | undefined {
  if (compiled === undefined) compiled = WebAssembly.validate(MODULE) ? new WebAssembly.Module(MODULE) : null;
  if (!compiled) return undefined;
  return new WebAssembly.Instance(compiled, { e: { m: memory } }).exports.dot as DotKernel;
}
