// The three lifetime settings (upload URLs, download and preview URLs, access tokens) end at 100
// years. Unbounded, a lifetime of thousands of years started the server, and every upload init
// then stored its document and answered 500: its expiry was past year 9999, which no timestamp
// of a response can carry. At the bound itself, everything still answers.
import { expect, test } from "bun:test";
import { ConfigError, loadConfig, MAX_LIFETIME_S } from "../../src/config.ts";
import { startKbqa } from "../helpers/server.ts";

const refusal = (flag: string, value: string) => {
  try {
    loadConfig({ [flag]: value }, {}, "/tmp");
    return "accepted";
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
};

test("a lifetime past 100 years is refused at start, naming the flag and the range", () => {
  const past = String(MAX_LIFETIME_S + 1);
  expect([refusal("upload-url-ttl", "300000000000"), refusal("download-url-ttl", past), refusal("max-token-ttl", past)]).toEqual([
    `--upload-url-ttl: must be an integer from 1 to ${MAX_LIFETIME_S}, got "300000000000"`,
    `--download-url-ttl: must be an integer from 1 to ${MAX_LIFETIME_S}, got "${past}"`,
    `--max-token-ttl: must be an integer from 11 to ${MAX_LIFETIME_S}, got "${past}"`,
  ]);
});

test("at 100 years, upload and download URLs and access tokens carry their expiry", async () => {
  const max = String(MAX_LIFETIME_S);
  await using k = await startKbqa({ flags: ["--upload-url-ttl", max, "--download-url-ttl", max, "--max-token-ttl", max] });
  const org = await k.org();
  const corpusId = (await org.api("POST", "/v1/corpus/", { name: "c" })).body.id;
  const init = await org.api("POST", "/v1/doc/init", { corpusId, filename: "a.txt", contentType: "text/plain" });
  expect(init.status).toBe(200);
  const put = await fetch(init.body.uploadUrl, { method: "PUT", headers: { "content-type": "text/plain" }, body: "A century-long link." });
  expect(put.status).toBe(200);
  const download = await org.api("GET", `/v1/doc/${init.body.document.id}/download-url`);
  const token = await org.api("POST", "/v1/auth/access-token", { scope: ["corpus:read"], ttl: MAX_LIFETIME_S });
  // each expiry is its lifetime from now (a minute's slack for a slow machine)
  const late = [init.body.expiresAt, download.body.expiresAt, token.body.expiresAt].map((t: string) => Math.abs(Date.parse(t) - (Date.now() + MAX_LIFETIME_S * 1000)) < 60_000);
  expect({ statuses: [download.status, token.status], late }).toEqual({ statuses: [200, 200], late: [true, true, true] });
});
