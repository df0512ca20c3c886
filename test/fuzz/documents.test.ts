// Schema-driven fuzz of documents in every state (ready, awaiting upload, failed, deleted, of
// the other organization), their attachment aliases, and the presigned storage URLs
// (generator: test/helpers/fuzz-cases.ts; FUZZ_SEED and FUZZ_CAP replay or widen a run).
import { fuzzDomain, storage } from "../helpers/fuzz-domain.ts";

fuzzDomain("documents", { minOps: 15, extra: storage });
