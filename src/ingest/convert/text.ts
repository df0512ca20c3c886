import { ConversionError } from "./errors.ts";
import { escapeLineStart } from "./markdown-writer.ts";

/** Decodes UTF-8 strictly (a stray BOM is dropped) and normalises line ends. */
export function decodeUtf8(bytes: Uint8Array): string {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new ConversionError("the file is not valid UTF-8 text");
  }
  if (text.includes("\u0000")) throw new ConversionError("the file contains NUL bytes, so it is not text");
  return text.replace(/\r\n?/g, "\n");
}

export function markdownToMarkdown(bytes: Uint8Array): string {
  return decodeUtf8(bytes).trim() + "\n";
}

/** Plain text is not markdown: lines that would read as structure are escaped; paragraphs are kept. */
export function plainToMarkdown(bytes: Uint8Array): string {
  const text = decodeUtf8(bytes).trim();
  if (!text) return "";
  return text.split("\n").map((l) => escapeLineStart(l.trimEnd())).join("\n") + "\n";
}

export function jsonToMarkdown(bytes: Uint8Array): string {
  const text = decodeUtf8(bytes);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ConversionError(`invalid JSON: ${(err as Error).message}`);
  }
  const pretty = JSON.stringify(value, null, 2);
  let fence = "```";
  while (pretty.includes(fence)) fence += "`";
  return `${fence}json\n${pretty}\n${fence}\n`;
}
