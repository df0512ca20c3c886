// The README's table of settings (Operator CLI) against src/config.ts, the one place that reads
// them: every setting has its row with its variable and the default `kbqa --help` prints, and
// every row names a setting kbqa accepts.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { defaultNote, FIELDS } from "../../src/config.ts";
import { ROOT } from "../helpers/server.ts";

const rows = readFileSync(join(ROOT, "README.md"), "utf8")
  .split("\n")
  .filter((l) => /^\| `--[a-z-]+/.test(l))
  .map((l) => {
    const [flag, variable, def] = l.split("|").slice(1, 4).map((c) => c.trim().replace(/`/g, ""));
    return { flag: flag!.split(" ")[0]!, variable: variable!, def: def! };
  });

test("every row names a setting kbqa accepts, once", () => {
  expect(rows.map((r) => r.flag).sort()).toEqual(FIELDS.map((f) => `--${f.flag}`).sort());
});

test("each setting's row has its variable and the default --help prints", () => {
  const wrong: string[] = [];
  for (const f of FIELDS) {
    const row = rows.find((r) => r.flag === `--${f.flag}`)!;
    if (row.variable !== f.env) wrong.push(`${row.flag}: variable ${row.variable}, kbqa reads ${f.env}`);
    const help = /^ \(default: (.*)\)$/.exec(defaultNote(f))?.[1];
    // The README may add the unit in words: "104857600 (100 MiB)".
    if (help !== undefined && !row.def.startsWith(help)) wrong.push(`${row.flag}: default "${row.def}", --help says "${help}"`);
    if (help === undefined && /^\d/.test(row.def)) wrong.push(`${row.flag}: default "${row.def}", but it has none`);
  }
  expect(wrong).toEqual([]);
});
