import type { CorpusMark } from "./drops.ts";
import { markCorpusDocuments } from "../documents/cascade.ts";
import { markCorpusSessions } from "../sessions/service.ts";

/**
 * What a corpus drop marks (corpus/drops.ts), in this order: the documents, each with its chunk
 * and vector drops, then the sessions bound to the corpus. Passed to the drop loop explicitly,
 * so whoever runs it (the server, a test, a benchmark) marks every kind of row.
 */
export const CORPUS_MARKS: readonly CorpusMark[] = [markCorpusDocuments, markCorpusSessions];
