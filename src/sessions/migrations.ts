import type { Migration } from "../store/migration.ts";

export const migrations: Migration[] = [];
