// Schema-driven fuzz of the deprecated widget paths, with the visitor's access token, against
// the schemas of the session and post operations they stand for (test/helpers/fuzz-run.ts).
import { fuzzDomain } from "../helpers/fuzz-domain.ts";

fuzzDomain("widget", { minOps: 6 });
