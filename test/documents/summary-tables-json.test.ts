// Over HTTP: a CSV and a JSON document, uploaded by the spec's flow, are summarised by their first
// rows and lines. Both summaries were "## Summary\n" and nothing else: their markdown is a table or
// a code block only, which the built-in summary dropped with the rest of the markdown syntax.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ingestDocument } from "../helpers/ingest.ts";
import { startKbqa, type Kbqa, type Org } from "../helpers/server.ts";
import { corpus } from "./helpers.ts";

let k: Kbqa;
let org: Org;
let cid: string;
beforeAll(async () => {
  k = await startKbqa();
  org = await k.org();
  cid = await corpus(org);
}, 120_000);
afterAll(() => k?.stop());

const summaryOf = async (id: string) => {
  const r = await org.api("GET", `/v1/doc/${id}/summary`);
  expect(r.status).toBe(200);
  return String(r.body);
};

describe("GET /v1/doc/{id}/summary of documents without prose", () => {
  test("a CSV: its first rows as 'Header: value', empty cells left out", async () => {
    const csv = "product,price,stock\nKettle,29.90,12\nToaster,,0\nBlender,54.00,3\n";
    const id = await ingestDocument(k, org, cid, "stock.csv", csv, "text/csv");
    expect(await summaryOf(id)).toEqual(
      "## Summary\n\n- product: Kettle; price: 29.90; stock: 12\n- product: Toaster; stock: 0\n- product: Blender; price: 54.00; stock: 3\n",
    );
  });

  test("a JSON document: its first members as 'key: value'", async () => {
    const json = JSON.stringify([{ product: "Kettle", price: 29.9 }, { product: "Toaster", price: 19.5, tags: ["sale"] }]);
    const id = await ingestDocument(k, org, cid, "stock.json", json, "application/json");
    expect(await summaryOf(id)).toEqual("## Summary\n\n- product: Kettle\n- price: 29.9\n- product: Toaster\n- price: 19.5\n- sale\n");
  });
});
