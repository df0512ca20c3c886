/** A conversion failure whose message is shown to users as the document's statusMsg. */
export class ConversionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConversionError";
  }
}

const MAX_LIBRARY_MESSAGE = 200;

/**
 * A library's error message as a statusMsg can show it: its first line, shortened. Parsers append
 * positions, dumps and stacks on further lines ("…\n@#[line:undefined,col:undefined]").
 */
export function briefMessage(err: unknown): string {
  const raw = err instanceof Error ? err.message : String(err);
  // Native libraries (LanceDB) append the Rust source position of the error: "…, /usr/local/cargo/…/x.rs:188:9".
  const line = raw.split("\n", 1)[0]!.replace(/,?\s*\/\S*\.rs:\d+:\d+/g, "").trim() || (err as Error)?.name || "unknown error";
  return line.length > MAX_LIBRARY_MESSAGE ? line.slice(0, MAX_LIBRARY_MESSAGE - 1) + "…" : line;
}
