// Refused session and chunk writes change nothing (test/helpers/refusal-sweep.ts).
import { refusalsChangeNothing } from "../helpers/refusal-domain.ts";

refusalsChangeNothing("sessions and chunks", (k) => / \/v1\/(session|chunk)\//.test(k), 5);
