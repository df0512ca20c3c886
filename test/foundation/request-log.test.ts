// --log-requests writes one line per request: method, path (never the query string, which can
// hold a presigned URL's signature or a question), status and milliseconds. It was accepted and
// documented but did nothing.
import { expect, test } from "bun:test";
import { startKbqa, waitFor } from "../helpers/server.ts";

const requestLines = (stderr: string) =>
  stderr.split("\n").filter((l) => l.includes('"request"')).map((l) => JSON.parse(l)).filter((l) => l.msg === "request");

test("with --log-requests each request is one line with its real status; the query string is never logged", async () => {
  await using k = await startKbqa({ flags: ["--log-requests"] });
  const org = await k.org();
  await k.request("GET", "/pub/ping");
  await k.request("GET", "/v1/corpus/?name=secret-question");
  await org.api("GET", "/v1/corpus/?name=secret-question");
  await org.api("GET", "/v1/corpus/not-a-uuid");
  await org.api("POST", "/v1/corpus/", { name: 5 });
  const corpusId = (await org.api("POST", "/v1/corpus/", { name: "c" })).body.id;
  const init = await org.api("POST", "/v1/doc/init", { corpusId, filename: "a.txt", contentType: "text/plain" });
  const upload = new URL(init.body.uploadUrl);
  await fetch(upload, { method: "PUT", headers: { "content-type": "text/plain" }, body: "hello" });
  await fetch(upload, { method: "PUT", headers: { "content-type": "text/plain" }, body: "again" });
  const lines = await waitFor(() => {
    const l = requestLines(k.stderr());
    return l.length >= 9 ? l : null;
  }, "nine request lines");
  expect(lines.map(({ method, path, status }) => [method, path, status])).toEqual([
    ["GET", "/pub/ping", 200],
    ["GET", "/v1/corpus/", 403],
    ["GET", "/v1/corpus/", 200],
    ["GET", "/v1/corpus/not-a-uuid", 400],
    ["POST", "/v1/corpus/", 400],
    ["POST", "/v1/corpus/", 200],
    ["POST", "/v1/doc/init", 200],
    ["PUT", upload.pathname, 200],
    ["PUT", upload.pathname, 412],
  ]);
  for (const l of lines) expect(typeof l.ms).toBe("number");
  expect(k.stderr()).not.toContain("secret-question");
  expect(k.stderr()).not.toContain(upload.searchParams.get("X-Kbqa-Signature")!);
});

test("without the flag no request is logged", async () => {
  await using k = await startKbqa();
  await k.request("GET", "/pub/ping");
  await k.request("GET", "/v1/corpus/");
  expect(requestLines(k.stderr())).toEqual([]);
});

test("an access token in the revocation path is never logged, whether the revocation succeeds or not", async () => {
  await using k = await startKbqa({ flags: ["--log-requests"] });
  const [a, b] = [await k.org(), await k.org()];
  const mint = async () => (await a.api("POST", "/v1/auth/access-token", { scope: ["corpus:read"] })).body.token as string;
  const [revoked, kept, expiredTry] = [await mint(), await mint(), await mint()];
  const expiredJwt = await a.jwt({}, { expSeconds: -3600 });
  const answers = [
    (await a.api("DELETE", `/v1/auth/access-token/${revoked}`)).status,
    // Another organization's revocation, and one with an expired JWT: the token stays live.
    (await b.api("DELETE", `/v1/auth/access-token/${kept}`)).status,
    (await k.request("DELETE", `/v1/auth/access-token/${expiredTry}`, undefined, { authorization: `Bearer ${expiredJwt}` })).status,
  ];
  expect(answers).toEqual([200, 404, 403]);
  const lines = await waitFor(() => {
    const l = requestLines(k.stderr()).filter((x) => x.method === "DELETE");
    return l.length >= 3 ? l : null;
  }, "three DELETE lines");
  expect(lines.map(({ path, status }) => [path, status])).toEqual([
    ["/v1/auth/access-token/(token)", 200],
    ["/v1/auth/access-token/(token)", 404],
    ["/v1/auth/access-token/(token)", 403],
  ]);
  for (const t of [revoked, kept, expiredTry]) expect(k.stderr()).not.toContain(t.slice(5));
});
