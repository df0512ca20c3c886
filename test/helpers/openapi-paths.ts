// The `paths` of the published /openapi.json, read once per test file from a real server started
// for it (and stopped after the file): the tests of the published document only read it.
import { afterAll, beforeAll } from "bun:test";
import { startKbqa, type Kbqa } from "./server.ts";

export type Paths = Record<string, Record<string, any>>;

export function publishedPaths(): { paths: Paths } {
  const doc = { paths: {} as Paths };
  let k: Kbqa | undefined;
  beforeAll(async () => {
    k = await startKbqa();
    doc.paths = (await k.request("GET", "/openapi.json")).body.paths;
  });
  afterAll(() => k?.stop());
  return doc;
}
