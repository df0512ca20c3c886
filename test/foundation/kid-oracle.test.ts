// Without any credential, an unknown kid and a registered kid with a wrong signature used to get
// different messages, telling which kids are registered and active.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { SignJWT, generateKeyPair } from "jose";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";

let k: Kbqa;
let org: Org;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
});
afterAll(() => k?.stop());

test("an unknown kid and a registered kid signed by another key get the same 403", async () => {
  const { privateKey: stranger } = await generateKeyPair("RS256");
  const forged = (kid: string) =>
    new SignJWT({}).setProtectedHeader({ alg: "RS256", kid }).setSubject("u").setExpirationTime(Math.floor(Date.now() / 1000) + 600).sign(stranger);
  const answer = async (token: string) => {
    const r = await k.request("GET", "/v1/corpus/", undefined, { authorization: `Bearer ${token}` });
    return { status: r.status, message: r.body.message };
  };
  const registered = await answer(await forged(org.kid));
  const unknown = await answer(await forged(crypto.randomUUID()));
  expect(registered.status).toBe(403);
  expect(registered).toEqual(unknown);
  // The real key still works: the shared message hides nothing from its holder.
  expect((await org.api("GET", "/v1/corpus/")).status).toBe(200);
});
