/**
 * Every object key the service writes, in one place, so the writer (ingestion) and the URL
 * signer (documents) can never disagree. Ids are UUIDs checked by the callers; sizes are enums.
 */
export const originalKey = (orgId: string, docId: string) => `orgs/${orgId}/docs/${docId}/original`;
export const markdownKey = (orgId: string, docId: string, generation: number) => `orgs/${orgId}/docs/${docId}/g${generation}/converted.md`;
/** A document's folder: every generation's files are under `g{generation}/` in it. */
export const documentKey = (orgId: string, docId: string) => `orgs/${orgId}/docs/${docId}`;
export const previewDirKey = (orgId: string, docId: string, generation: number) => `${documentKey(orgId, docId)}/g${generation}/preview`;
export const previewKey = (orgId: string, docId: string, generation: number, page: number, size: "SMALL" | "MEDIUM") =>
  `${previewDirKey(orgId, docId, generation)}/${page}-${size}.png`;
/**
 * Written in place of a page's tiles when pdf.js cannot draw the page, so that the tiles' URLs can
 * say their 404 is for good. Not a tile: never counted in a budget nor taken for a finished page.
 */
export const previewSkippedKey = (orgId: string, docId: string, generation: number, page: number) =>
  `${previewDirKey(orgId, docId, generation)}/${page}-SKIPPED`;
/** The skipped-page marker of the page whose tile `key` names; null for a key that is no tile. */
export const skippedMarkerOfTile = (key: string): string | null => {
  const m = /^(orgs\/[^/]+\/docs\/[^/]+\/g\d+\/preview\/\d+)-(?:SMALL|MEDIUM)\.png$/.exec(key);
  return m ? `${m[1]}-SKIPPED` : null;
};
