// Loaded before every test file (bunfig.toml): hooks here apply to the whole run.
import { afterAll } from "bun:test";
import { stopLeftovers } from "./server.ts";

afterAll(async () => {
  const n = await stopLeftovers();
  if (n) console.error(`test/helpers/preload.ts: stopped ${n} server(s) a test left running`);
});
