// Schema-driven fuzz of corpora and sessions, the deprecated PUT and session searches included
// (generator: test/helpers/fuzz-cases.ts; FUZZ_SEED and FUZZ_CAP replay or widen a run).
import { fuzzDomain } from "../helpers/fuzz-domain.ts";

fuzzDomain("corpora and sessions", { minOps: 14 });
