// Refused agent and access-token writes change nothing (test/helpers/refusal-sweep.ts).
import { refusalsChangeNothing } from "../helpers/refusal-domain.ts";

refusalsChangeNothing("agents and access tokens", (k) => / \/v1\/(agent|auth)\//.test(k), 5);
