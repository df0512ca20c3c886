// Schema-driven fuzz of chunk listing, search, get, patch and delete, with chunks of a live, a
// deleted and another organization's document (generator: test/helpers/fuzz-cases.ts).
import { fuzzDomain } from "../helpers/fuzz-domain.ts";

fuzzDomain("chunks", { minOps: 5 });
