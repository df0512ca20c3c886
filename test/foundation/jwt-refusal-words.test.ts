import { afterAll, beforeAll, expect, test } from "bun:test";
import { SignJWT } from "jose";
import { startKbqa, sharedKeyPair, type Kbqa, type Org } from "../helpers/server.ts";

// A refused JWT is explained in terms of the token ("it expired at …"), not in the verifying
// library's words ('"exp" claim timestamp check failed').
let k: Kbqa;
let org: Org;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org("words");
});
afterAll(() => k?.stop());

const now = () => Math.floor(Date.now() / 1000);
async function refusal(build: (b: SignJWT) => SignJWT): Promise<[number, string]> {
  const { privateKey } = await sharedKeyPair();
  const jwt = await build(new SignJWT({}).setProtectedHeader({ alg: "RS256", kid: org.kid })).sign(privateKey);
  const r = await k.request("GET", "/v1/corpus/", undefined, { authorization: `Bearer ${jwt}` });
  return [r.status, r.body.message];
}

test("expired and not-yet-valid tokens say when", async () => {
  const exp = now() - 3600;
  expect(await refusal((b) => b.setSubject("x").setExpirationTime(exp))).toEqual([403, `Invalid bearer token: it expired at ${new Date(exp * 1000).toISOString()} (its exp claim)`]);
  const nbf = now() + 3600;
  expect(await refusal((b) => b.setSubject("x").setExpirationTime(nbf + 60).setNotBefore(nbf))).toEqual([403, `Invalid bearer token: it is not valid before ${new Date(nbf * 1000).toISOString()} (its nbf claim)`]);
});

test("a missing claim is named", async () => {
  expect(await refusal((b) => b.setSubject("x"))).toEqual([403, "Invalid bearer token: the exp claim is required"]);
  expect(await refusal((b) => b.setExpirationTime(now() + 600))).toEqual([403, "Invalid bearer token: the sub claim is required"]);
});

// The user id follows the rule the API applies to it elsewhere (an access token's userId, the usage
// report's path): a 300-character sub made sessions whose usage its user could not then ask for.
test("a sub that is no usable user id is refused, naming the rule", async () => {
  const rule = "Invalid bearer token: sub must be 1 to 256 characters, not only blanks, without control characters";
  for (const sub of ["x\u0000y", "a\nb", "   ", "u".repeat(257)]) {
    expect(await refusal((b) => b.setSubject(sub).setExpirationTime(now() + 600))).toEqual([403, rule]);
  }
  expect((await refusal((b) => b.setSubject("u".repeat(256)).setExpirationTime(now() + 600)))[0]).toBe(200);
});
