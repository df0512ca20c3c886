/**
 * Filters of the chunk table (lance.ts) as LanceDB SQL: ids become literals only once checked to
 * be UUIDs, and long id lists are cut so a single filter stays a reasonable size.
 */
import { isUuid } from "./ids.ts";

const IN_LIST_MAX = 500;

export function uuid(id: string): string {
  // Ids reach filters as SQL literals; only UUIDs (no quotes possible) are let through.
  if (!isUuid(id)) throw new Error(`not a uuid: ${JSON.stringify(id)}`);
  return `'${id}'`;
}

export const inList = (ids: string[]) => ids.map(uuid).join(", ");

/** Keys per organization, cut in slices of at most IN_LIST_MAX (one filter each). */
export function byOrgSlices<T extends { orgId: string }>(items: T[], keyOf: (item: T) => string): [string, string[]][] {
  const by = new Map<string, string[]>();
  for (const it of items) {
    let list = by.get(it.orgId);
    if (!list) by.set(it.orgId, (list = []));
    list.push(keyOf(it));
  }
  return [...by].flatMap(([org, keys]) => slices(keys).map((part): [string, string[]] => [org, part]));
}

export function slices(keys: string[]): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < keys.length; i += IN_LIST_MAX) out.push(keys.slice(i, i + IN_LIST_MAX));
  return out;
}

