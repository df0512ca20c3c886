// Bullets of a list came out as "- - Parking fee …", and a "* item" ran into the item before it
// ("… 20 euros star item here"): list markers were left to the sentence splitter.
import { expect, test } from "bun:test";
import { extractiveSummary } from "../../src/models/builtin-summary.ts";

test("list items of any marker become one clean bullet each", () => {
  const md = "# Office guide\n\n## Fees\n\n- Parking fee is 12 euros per month\n* Locker deposit is 20 euros per year\n1. Badge replacement costs 5 euros each\n";
  expect(extractiveSummary(md, "en").text).toBe(
    "## Summary\n\n- Parking fee is 12 euros per month\n- Locker deposit is 20 euros per year\n- Badge replacement costs 5 euros each\n",
  );
});
