import { PLATFORM_DEFAULTS } from "./defaults.ts";

export interface InstructionParts {
  context?: string | null;
  behaviour?: string | null;
  spirit?: string | null;
}

/**
 * The resolved system instruction an agent hands to the model: its `context`, `behaviour` and
 * `spirit`, in that order, each replaced by the platform default when unset (null, absent or
 * blank), trimmed, and joined by one blank line. Deterministic: the same parts give the same text.
 * The answering pipeline appends the numbered passages and the reply language after it.
 */
export function systemInstruction(p: InstructionParts): string {
  const pick = (v: string | null | undefined, d: string) => (v != null && v.trim() !== "" ? v.trim() : d);
  return [
    pick(p.context, PLATFORM_DEFAULTS.context),
    pick(p.behaviour, PLATFORM_DEFAULTS.behaviour),
    pick(p.spirit, PLATFORM_DEFAULTS.spirit),
  ].join("\n\n");
}
