/**
 * Every object key the service writes, in one place, so the writer (ingestion) and the URL
 * signer (documents) can never disagree. Ids are UUIDs checked by the callers; sizes are enums.
 */
export const originalKey = (orgId: string, docId: string) => `orgs/${orgId}/docs/${docId}/original`;
export const markdownKey = (orgId: string, docId: string, generation: number) => `orgs/${orgId}/docs/${docId}/g${generation}/converted.md`;
export const previewKey = (orgId: string, docId: string, generation: number, page: number, size: "SMALL" | "MEDIUM") =>
  `orgs/${orgId}/docs/${docId}/g${generation}/preview/${page}-${size}.png`;
