import { describe, expect, test } from "bun:test";
import { requiredScope, scopeCovers, isScopeEntry } from "../../src/auth/scope.ts";

describe("scope table", () => {
  test.each([
    ["GET", "/v1/corpus/", ["corpus:read"]],
    ["POST", "/v1/corpus/", ["corpus:create"]],
    ["PATCH", "/v1/corpus/x", ["corpus:update"]],
    ["PUT", "/v1/corpus/x", ["corpus:update"]],
    ["DELETE", "/v1/corpus/x", ["corpus:delete"]],
    ["PUT", "/v1/doc/x/init", ["doc:update"]],
    ["POST", "/v1/doc/x/commit", ["doc:create", "doc:update"]],
    ["POST", "/v1/doc/init", ["doc:create"]],
    ["HEAD", "/v1/post/q", ["post:read", "post:create"]],
    ["HEAD", "/v1/corpus/x", ["corpus:read"]],
    ["PATCH", "/v1/doc/x", ["doc:update"]],
    ["GET", "/v1/doc/x/download-url", ["doc:read"]],
    ["GET", "/v1/post/attachment/x/preview-urls", ["post:read"]],
    ["GET", "/v1/post/q", ["post:read", "post:create"]],
    ["POST", "/v1/post/", ["post:read", "post:create"]],
    ["GET", "/v1/post/", ["post:read"]],
    ["GET", "/v1/usage/all", ["usage:read"]],
  ] as const)("%s %s needs one of %p", (m, p, need) => {
    expect(requiredScope(m, p)).toEqual([...need]);
  });

  test("coverage", () => {
    expect(scopeCovers([], "DELETE", "/v1/corpus/x")).toBe(true);
    expect(scopeCovers(["post:create"], "GET", "/v1/post/q")).toBe(true);
    expect(scopeCovers(["post:read"], "POST", "/v1/post/")).toBe(true);
    expect(scopeCovers(["post:read"], "DELETE", "/v1/post/x")).toBe(false);
    expect(scopeCovers(["doc:read"], "PUT", "/v1/doc/x/init")).toBe(false);
  });

  test("entries", () => {
    expect(isScopeEntry("chunk:delete")).toBe(true);
    for (const bad of ["chunk", "chunk:", ":read", "admin:read", "doc:write", "doc:read "]) expect(isScopeEntry(bad)).toBe(false);
  });
});
