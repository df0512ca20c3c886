import { describe, expect, test } from "bun:test";
import { FormatRegistry } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { t } from "elysia";
import { isUuid } from "../../src/http/typebox-setup.ts";
// The whole HTTP surface, which loads the OpenAPI plugin (it registers its own "uuid" check).
import { buildApp } from "../../src/http/app.ts";

const Id = TypeCompiler.Compile(t.Object({ id: t.String({ format: "uuid" }) }));

describe("uuid format", () => {
  test("the project's compiled check stays registered after the OpenAPI plugin is loaded", () => {
    expect(typeof buildApp).toBe("function");
    expect(FormatRegistry.Get("uuid")).toBe(isUuid);
  });

  test("accepts RFC 9562 versions 1-8 in either case and the nil and max UUIDs", () => {
    const ok = [
      crypto.randomUUID(),
      crypto.randomUUID().toUpperCase(),
      "017f22e2-79b0-7cc3-98c4-dc0c0c07398f", // v7
      "a8098c1a-f86e-11da-bd1a-00112444be1e", // v1
      "00000000-0000-0000-0000-000000000000",
      "ffffffff-ffff-ffff-ffff-ffffffffffff",
    ];
    expect(ok.map((id) => Id.Check({ id }))).toEqual(ok.map(() => true));
  });

  test("refuses other strings, as the plugin's check did", () => {
    const bad = [
      "not-a-uuid",
      "",
      "urn:uuid:6ba7b810-9dad-11d1-80b4-00c04fd430c8",
      "6ba7b810-9dad-01d1-80b4-00c04fd430c8", // version 0
      "6ba7b810-9dad-91d1-80b4-00c04fd430c8", // version 9
      "6ba7b810-9dad-41d1-c0b4-00c04fd430c8", // variant bits 11
      "6ba7b8109dad41d180b400c04fd430c8",
      ` ${crypto.randomUUID()}`,
      `${crypto.randomUUID()}\n`,
    ];
    expect(bad.map((id) => Id.Check({ id }))).toEqual(bad.map(() => false));
  });
});
