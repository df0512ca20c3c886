import { formatBytes } from "../units.ts";
import { ConversionError } from "./errors.ts";

/**
 * The text an Office archive expands into, held to the archive's uncompressed-size limit. Its parts
 * are measured by the zip limits, but a part can be shown many times (a shared string in every cell
 * naming it, one slide listed over and over), so a few KiB of zip can name gigabytes of text.
 */
export class TextBudget {
  private used = 0;
  constructor(private readonly max: number, private readonly holds: string, private readonly how: string) {}

  spend(chars: number): void {
    this.used += chars;
    this.check(0);
  }

  /** Throws as spend(chars) would, spending nothing: for a size that is still growing and is spent once it is final. */
  check(chars: number): void {
    if (this.used + chars > this.max) {
      throw new ConversionError(`${this.holds} more than ${formatBytes(this.max)} of text (${this.how}), over the limit`);
    }
  }
}
