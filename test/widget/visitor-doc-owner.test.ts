// A visitor's token (minted for another userId) acts as that user: given doc:create, it could
// file a document, and the storage usage it brings, under any user's name through `userId`.
import { expect, test } from "bun:test";
import { startKbqa } from "../helpers/server.ts";
import { corpus } from "../posts/helpers.ts";

test("doc init with a visitor's token files the document under the visitor, whatever userId says", async () => {
  await using k = await startKbqa();
  const a = await k.org("owner");
  const corpusId = await corpus(a, "kb");
  const jwt = { authorization: `Bearer ${await a.jwt({}, { sub: "alice" })}` };
  const mint = async (userId?: string) => {
    const r = await a.api("POST", "/v1/auth/access-token", { scope: ["doc:create", "doc:read"], ...(userId ? { userId } : {}) }, jwt);
    expect(r.status).toBe(200);
    return r.body.token as string;
  };
  const init = async (token: string, userId?: string) => {
    const r = await k.request("POST", "/v1/doc/init", { corpusId, filename: "f.txt", contentType: "text/plain", ...(userId ? { userId } : {}) }, { "x-access-token": token });
    expect(r.status).toBe(200);
    return r.body.document.userId as string;
  };
  const visitor = await mint("visitor-1");
  expect(await init(visitor, "bob")).toBe("visitor-1");
  expect(await init(visitor)).toBe("visitor-1");
  // The organization's own credentials still name whom a document is for, as the spec allows.
  expect(await init(await mint(), "bob")).toBe("bob");
  expect((await a.api("POST", "/v1/doc/init", { corpusId, filename: "g.txt", contentType: "text/plain", userId: "carol" }, jwt)).body.document.userId).toBe("carol");
});
