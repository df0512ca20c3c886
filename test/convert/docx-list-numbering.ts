// Shared by the DOCX forced-cut list tests: the conversion limits and a numbering part with three
// lists whose levels mix kinds. numId 1: decimal, bullet, decimal by level; numId 2: bullet,
// decimal, bullet; numId 3: decimal at every level.
export const DOCX_LIMITS = { maxUncompressedBytes: 200 * 1024 * 1024, maxZipEntries: 10_000 };

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const lvl = (i: number, fmt: string) => `<w:lvl w:ilvl="${i}"><w:numFmt w:val="${fmt}"/></w:lvl>`;
export const LIST_NUMBERING = `<?xml version="1.0"?><w:numbering ${W}>` +
  `<w:abstractNum w:abstractNumId="0">${lvl(0, "decimal")}${lvl(1, "bullet")}${lvl(2, "decimal")}</w:abstractNum>` +
  `<w:abstractNum w:abstractNumId="1">${lvl(0, "bullet")}${lvl(1, "decimal")}${lvl(2, "bullet")}</w:abstractNum>` +
  `<w:abstractNum w:abstractNumId="2">${lvl(0, "decimal")}${lvl(1, "decimal")}${lvl(2, "decimal")}</w:abstractNum>` +
  [0, 1, 2].map((a) => `<w:num w:numId="${a + 1}"><w:abstractNumId w:val="${a}"/></w:num>`).join("") + "</w:numbering>";
