// Refused questions, post deletes and widget writes change nothing (test/helpers/refusal-sweep.ts).
import { refusalsChangeNothing } from "../helpers/refusal-domain.ts";

refusalsChangeNothing("posts and widget", (k) => / \/(v1\/post|v1\/webhook|webhook\/v1)\//.test(k), 6);
