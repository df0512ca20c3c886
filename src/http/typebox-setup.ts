import { t } from "elysia";

/**
 * Fields the service does not know are accepted and ignored (spec, Versioning rule 3).
 * Elysia's normalizers would strip them, but they cost more than the whole authenticated
 * request on hot routes, so the app runs with `normalize: false` and every object schema
 * instead allows additional properties unless it says otherwise. Services read only the
 * fields they know, so extra ones are ignored. Must be imported before any schema module.
 */
const original = t.Object;
(t as { Object: typeof t.Object }).Object = ((properties: Parameters<typeof t.Object>[0], options?: Parameters<typeof t.Object>[1]) =>
  original(properties, { additionalProperties: true, ...options })) as typeof t.Object;

export {};
