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
