// A document's `userId` (POST /v1/doc/init) follows the rule of every user id the service takes
// (a JWT's `sub`, an access token's `userId`): 1 to 256 characters, not only blanks, no control
// characters. Init stored "", "   ", a NUL or a newline as the document's owner, ids that no
// credential can carry and that usage reports by user cannot be asked for.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus, init } from "./helpers.ts";

let k: Kbqa;
let a: Org;
let corpusId: string;
beforeAll(async () => {
  k = await startKbqa();
  a = await k.org();
  corpusId = await corpus(a);
});
afterAll(() => k?.stop());

const RULE = "must be 1 to 256 characters, not only blanks, without control characters, or null";
const total = async () => (await a.api("GET", `/v1/doc/?corpusId=${corpusId}`)).body.total as number;

test.each([
  ["empty", ""],
  ["blanks only", "   "],
  ["a NUL", "a\u0000b"],
  ["a newline", "line\nbreak"],
  ["a tab", "\tuser"],
  ["257 characters", "u".repeat(257)],
])("userId with %s → 400 naming userId, nothing written", async (_, userId) => {
  const before = await total();
  const r = await init(a, { corpusId, userId });
  expect(r.status).toBe(400);
  expect(r.body.message).toStartWith(`Invalid body field 'userId': ${RULE}`);
  expect(await total()).toBe(before);
});

test("a valid userId is stored as given; null or absent is the caller's", async () => {
  const given = await init(a, { corpusId, userId: " uploader 7 " });
  expect(given.status).toBe(200);
  expect(given.body.document.userId).toBe(" uploader 7 ");
  expect((await init(a, { corpusId, userId: "é".repeat(256) })).body.document?.userId).toBe("é".repeat(256));
  expect((await init(a, { corpusId, userId: null })).body.document.userId).toBe("user-1");
  expect((await init(a, { corpusId })).body.document.userId).toBe("user-1");
});
