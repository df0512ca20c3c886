/**
 * Mints an RS256 JWT for trying the API by hand (production callers sign their own).
 * Usage: bun scripts/mint-jwt.ts --key private.pem --kid KID [--sub USER] [--ttl SECONDS] [--scope "corpus:read doc:read"] [--email E] [--name N]
 */
import { importPKCS8, SignJWT } from "jose";
import { createPrivateKey } from "node:crypto";
import { readFileSync } from "node:fs";
import { parseArgs } from "../src/cli.ts";

const { flags } = parseArgs(process.argv.slice(2));
if (!flags.key || !flags.kid) {
  console.error("usage: bun scripts/mint-jwt.ts --key private.pem --kid KID [--sub USER] [--ttl SECONDS] [--scope 'a:b c:d'] [--email E] [--name N]");
  process.exit(2);
}
// Accept both PKCS#1 ("BEGIN RSA PRIVATE KEY", what older openssl writes) and PKCS#8.
const pkcs8 = createPrivateKey(readFileSync(String(flags.key), "utf8")).export({ type: "pkcs8", format: "pem" }).toString();
const key = await importPKCS8(pkcs8, "RS256");
const claims: Record<string, unknown> = {};
if (flags.scope) claims.scope = String(flags.scope);
if (flags.email) claims.email = String(flags.email);
if (flags.name) claims.name = String(flags.name);
const jwt = await new SignJWT(claims)
  .setProtectedHeader({ alg: "RS256", kid: String(flags.kid) })
  .setSubject(String(flags.sub ?? "admin"))
  .setIssuedAt()
  .setExpirationTime(Math.floor(Date.now() / 1000) + Number(flags.ttl ?? 3600))
  .sign(key);
console.log(jwt);
