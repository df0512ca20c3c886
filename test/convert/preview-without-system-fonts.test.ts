// Preview tiles must not depend on the fonts installed on the machine: an air-gapped server or the
// Docker image (debian:bookworm-slim has no /usr/share/fonts) has none, and a PDF that names one of
// the 14 standard fonts without embedding it (Helvetica, Times, Courier: what pdf-lib, many report
// generators and office exports write) rendered as a blank white page there. The renderer is run in
// a child process inside a mount namespace where every system font folder is an empty tmpfs.
import { expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PDFDocument, StandardFonts } from "pdf-lib";

const FONT_DIRS = ["/usr/share/fonts", "/usr/local/share/fonts", "/usr/share/X11/fonts"].filter(existsSync);
const canHide = FONT_DIRS.length > 0 && Bun.spawnSync(["unshare", "-m", "sh", "-c", `mount -t tmpfs none ${FONT_DIRS[0]}`], { stdout: "ignore", stderr: "ignore" }).exitCode === 0;

/** One page per standard family, each with one big line of text in its top 300 px (at 1024 px wide). */
async function standardFontsPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  for (const name of [StandardFonts.Helvetica, StandardFonts.TimesRoman, StandardFonts.Courier, StandardFonts.HelveticaBold]) {
    const font = await doc.embedFont(name); // the standard 14 are referenced by name, not embedded
    doc.addPage([595, 842]).drawText(`Quarterly figures ${name}`, { x: 40, y: 780, size: 28, font });
  }
  return doc.save();
}

// Counts dark pixels in the top 300 rows of each MEDIUM tile; run with the fonts hidden. The script
// lives in a temporary folder, so the canvas module is named by its path in this checkout: a bare
// name would not resolve from there (Bun auto-installs another copy, whose images the renderer's
// canvas refuses).
const RENDER = `
import { renderPdfPreviews } from ${JSON.stringify(join(import.meta.dir, "../../src/ingest/preview.ts"))};
import { createCanvas, loadImage } from ${JSON.stringify(Bun.resolveSync("@napi-rs/canvas", import.meta.dir))};
const bytes = new Uint8Array(await Bun.file(process.argv[2]).arrayBuffer());
const dark = [];
for await (const p of renderPdfPreviews(bytes)) {
  if (p.size !== "MEDIUM") continue;
  const img = await loadImage(Buffer.from(p.png));
  const ctx = createCanvas(img.width, img.height).getContext("2d");
  ctx.drawImage(img, 0, 0);
  const data = ctx.getImageData(0, 0, img.width, 300).data;
  let n = 0;
  for (let i = 0; i < data.length; i += 4) if (data[i] < 128) n++;
  dark.push(n);
}
console.log(JSON.stringify(dark));
`;

test.skipIf(!canHide)("standard-font text is drawn in preview tiles when the machine has no system fonts", async () => {
  const dir = mkdtempSync(join(tmpdir(), "kbqa-nofonts-"));
  try {
    writeFileSync(join(dir, "fonts.pdf"), await standardFontsPdf());
    writeFileSync(join(dir, "render.ts"), RENDER);
    const hide = FONT_DIRS.map((d) => `mount -t tmpfs none ${d}`).join(" && ");
    const check = FONT_DIRS.map((d) => `[ -z "$(ls -A ${d})" ]`).join(" && ");
    const p = Bun.spawn(["unshare", "-m", "sh", "-c", `${hide} && ${check} && exec "$@"`, "sh", process.execPath, join(dir, "render.ts"), join(dir, "fonts.pdf")], {
      cwd: join(import.meta.dir, "../.."), stdout: "pipe", stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    expect({ code, err: code === 0 ? "" : err }).toEqual({ code: 0, err: "" });
    const dark = JSON.parse(out.trim().split("\n").pop()!) as number[];
    expect(dark).toHaveLength(4);
    // A blank page has 0 dark pixels; a 28 pt line of text at 1024 px wide has several thousand.
    for (const n of dark) expect(n).toBeGreaterThan(1000);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
