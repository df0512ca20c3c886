// An answer that fails its own response schema is raised by Elysia after the handler ran: the
// document was stored, the change applied. It was answered like a refused request (400 "Invalid
// body field 'document.docCreate'") and logged nothing, so a client dropped a write that had
// happened and the operator never heard of it. A stored value the schema no longer admits (here a
// session bound to a corpus id that is no uuid, as a hand-edited or foreign data directory may
// hold) must answer 500 and be logged.
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { startKbqa } from "../helpers/server.ts";

test("a response failing its schema answers 500 and is logged, not a 400 blaming the request", async () => {
  const first = await startKbqa({ keepData: true });
  const dataDir = first.dataDir;
  await using cleanup = { [Symbol.asyncDispose]: async () => rmSync(dataDir, { recursive: true, force: true }) };
  const o = await first.org();
  const corpusId = (await o.api("POST", "/v1/corpus/", { name: "c" })).body.id;
  const sessionId = (await o.api("POST", "/v1/session/", { corpusIds: [corpusId] })).body.id;
  expect(typeof sessionId).toBe("string");
  await first.stop();
  const db = new Database(join(dataDir, "kbqa.sqlite"), { strict: true });
  db.query("UPDATE session_corpora SET corpus_id = 'not-a-uuid' WHERE session_id = ?").run(sessionId);
  db.close();

  await using k = await startKbqa({ dataDir });
  const got = await k.request("GET", `/v1/session/${sessionId}`, undefined, { authorization: `Bearer ${await o.jwt()}` });
  expect([got.status, got.body.message]).toEqual([500, "Unexpected server error; it has been logged"]);
  expect(k.stderr()).toContain("response failed its schema");
});
