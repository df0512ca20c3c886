/**
 * Port for the vector and full-text index (driver: LanceDB, ingestion helper). It stores and
 * searches; it does not chunk or embed. Every call is scoped by organization first, and
 * searches by corpus ids too. Callers must still drop hits whose chunk or document is deleted
 * in SQLite (the LIVE_CHUNK rule of store/live-chunks.ts), so a late or failed index delete can never leak a chunk.
 */
export interface VectorRecord {
  chunkId: string;
  orgId: string;
  corpusId: string;
  documentId: string;
  /** Document generation the chunk belongs to (documents.generation). */
  generation: number;
  text: string;
  vector: Float32Array;
}

export interface VectorHit {
  chunkId: string;
  documentId: string;
  corpusId: string;
  /** Higher is better; comparable only within one result list. */
  score: number;
}

export interface VectorIndex {
  /** Idempotent per chunkId: re-adding a chunk replaces it. */
  add(records: VectorRecord[]): Promise<void>;
  /** Every generation's rows, or only `generation`'s. */
  deleteDocument(orgId: string, documentId: string, generation?: number): Promise<void>;
  /** Every generation's rows of these documents, as few index writes as the driver can (a corpus delete drops thousands). */
  deleteDocuments?(orgId: string, documentIds: string[]): Promise<void>;
  deleteChunks(orgId: string, chunkIds: string[]): Promise<void>;
  countDocument(orgId: string, documentId: string, generation?: number): Promise<number>;
  searchVector(orgId: string, corpusIds: string[], vector: Float32Array, limit: number): Promise<VectorHit[]>;
  /** BM25 over the stored text. */
  searchText(orgId: string, corpusIds: string[], query: string, limit: number): Promise<VectorHit[]>;
  close(): Promise<void>;
}
