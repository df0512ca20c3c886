// Refused corpus writes (create, patch, the deprecated put, delete) change nothing (test/helpers/refusal-sweep.ts).
import { refusalsChangeNothing } from "../helpers/refusal-domain.ts";

refusalsChangeNothing("corpora", (k) => / \/v1\/corpus\//.test(k), 4);
