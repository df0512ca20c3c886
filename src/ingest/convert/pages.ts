// Page markers are the only channel carrying page numbers from conversion to the element parser,
// so their exact shape is a contract: a line `<!-- page N -->` followed by a blank line.

export const PAGE_MARKER_RE = /^<!-- page (\d+) -->$/;

export function pageMarker(n: number): string {
  return `<!-- page ${n} -->`;
}

const MARKER_LINE_RE = /^<!-- page \d+ -->$/gm;

/** Escapes marker-looking lines coming from document content so they cannot forge page numbers. */
export function neutralizeMarkers(text: string): string {
  return text.replace(MARKER_LINE_RE, (line) => "\\" + line);
}

/** Joins per-page markdown bodies (index 0 = page 1) with a marker before each page. */
export function joinPages(pages: string[]): string {
  const parts: string[] = [];
  pages.forEach((body, i) => {
    const clean = neutralizeMarkers(body.trim());
    parts.push(clean ? `${pageMarker(i + 1)}\n\n${clean}` : pageMarker(i + 1));
  });
  return parts.join("\n\n") + "\n";
}
