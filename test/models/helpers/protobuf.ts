// Minimal protobuf writer: enough wire format (varint, length-delimited) for ONNX ModelProto.
export type Field = [number, "varint", number | bigint] | [number, "bytes", Uint8Array] | [number, "string", string] | [number, "msg", Field[]];

function varint(v: number | bigint): number[] {
  let n = BigInt(v);
  if (n < 0n) n += 1n << 64n; // two's complement for negative int64
  const out: number[] = [];
  do {
    let b = Number(n & 0x7fn);
    n >>= 7n;
    if (n > 0n) b |= 0x80;
    out.push(b);
  } while (n > 0n);
  return out;
}

export function encode(fields: Field[]): Uint8Array {
  const parts: number[] = [];
  const enc = new TextEncoder();
  for (const [num, kind, value] of fields) {
    if (kind === "varint") {
      parts.push(...varint((num << 3) | 0), ...varint(value as number));
      continue;
    }
    const bytes = kind === "bytes" ? (value as Uint8Array) : kind === "string" ? enc.encode(value as string) : encode(value as Field[]);
    parts.push(...varint((num << 3) | 2), ...varint(bytes.length));
    for (const b of bytes) parts.push(b);
  }
  return Uint8Array.from(parts);
}
