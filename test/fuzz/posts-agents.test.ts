// Schema-driven fuzz of questions (the whole pipeline runs on the built-in tier), post listing,
// attachments and agents, core agents included (generator: test/helpers/fuzz-cases.ts).
import { fuzzDomain } from "../helpers/fuzz-domain.ts";

fuzzDomain("posts and agents", { minOps: 11 });
