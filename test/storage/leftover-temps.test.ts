// A server killed while it writes an object leaves its temporary file (`<object>.tmp-<pid>-<uuid>`)
// beside the final name. The next start removes those of writers that are gone, in the background,
// and leaves alone those of a live writer and every other file.
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startKbqa, tempDir, waitFor } from "../helpers/server.ts";

test("leftover temporary files of dead writers are removed at start; a live writer's and other files stay", async () => {
  using d = tempDir();
  const docDir = join(d.path, "blobs", "orgs", crypto.randomUUID(), "docs", crypto.randomUUID());
  mkdirSync(join(docDir, "g1", "preview"), { recursive: true });
  // A pid above the kernel's limit (2^22) names no process.
  const dead = 4_194_304 + 17;
  const files = {
    upload: join(docDir, `original.tmp-${dead}-${crypto.randomUUID()}`),
    markdown: join(docDir, "g1", `converted.md.tmp-${dead}-${crypto.randomUUID()}`),
    tile: join(docDir, "g1", "preview", `3-SMALL.png.tmp-${dead}-${crypto.randomUUID()}`),
    live: join(docDir, `original.tmp-${process.pid}-${crypto.randomUUID()}`),
    original: join(docDir, "original"),
    lookalike: join(docDir, `notes.tmp-${dead}-not-a-uuid`),
  };
  for (const f of Object.values(files)) writeFileSync(f, "x".repeat(1000));
  await using k = await startKbqa({ dataDir: d.path });
  await waitFor(() => !existsSync(files.upload) && !existsSync(files.markdown) && !existsSync(files.tile), "the dead writer's files to go", 10_000);
  expect(Object.fromEntries(Object.entries(files).map(([name, f]) => [name, existsSync(f)]))).toEqual({
    upload: false, markdown: false, tile: false, live: true, original: true, lookalike: true,
  });
  const line = await waitFor(() => k.stderr().split("\n").find((l) => l.includes("leftover temporary files removed")), "the log line");
  expect(JSON.parse(line)).toMatchObject({ files: 3, bytes: 3000 });
});
