// With --max-token-ttl raised by the operator, a ttl could put expiresAt past what a date-time
// can say: beyond 275760 toISOString throws (a 500, the token stored already), and between 10000
// and there it is written with a six-digit year the published date-time does not have. Such a ttl
// is refused naming the field, before anything is stored.
import { expect, test } from "bun:test";
import { startKbqa } from "../helpers/server.ts";

test("a ttl whose expiry falls after 9999-12-31 is a 400 naming ttl; the token list is unchanged", async () => {
  await using k = await startKbqa({ flags: ["--max-token-ttl", "100000000000000"] });
  const org = await k.org();
  const post = (ttl: number) => org.api("POST", "/v1/auth/access-token", { scope: ["session:read"], ttl });
  const huge = await post(10_000_000_000_000); // ~317,000 years
  const far = await post(300_000_000_000); // ~9,500 years: year 11500 or so
  const ok = await post(86_400 * 365 * 100);
  expect([huge.status, huge.body.message, far.status, far.body.message, ok.status]).toEqual([
    400, expect.stringContaining("'ttl'"), 400, expect.stringContaining("'ttl'"), 200,
  ]);
  expect(ok.body.expiresAt).toMatch(/^2\d{3}-/);
});
