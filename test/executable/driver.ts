// The executable's round trip, run against a copy of dist/kbqa in an otherwise empty folder, started
// with an empty environment (`env -i`). Kept apart from the test file so the test can run it inside
// a network namespace with no network (`unshare -n`), where the test process itself cannot reach
// the server. Prints one JSON report line on stdout; the test asserts on it.
//   bun test/executable/driver.ts WORKDIR
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { exportSPKI, generateKeyPair, SignJWT } from "jose";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { docx } from "../convert/fixtures.ts";

export const FACT_QUESTION = "What colour is the Skerryvore lighthouse painted?";
const PAGES = [
  ["Orchard notes.", "The pear trees in the northern orchard are pruned every February.", "Apples are stored in a cool cellar."],
  ["Coastal notes.", "The Skerryvore lighthouse is painted bright vermilion so ships can see it in fog.", "Its lamp was first lit in 1844."],
];

async function makePdf(pages: string[][]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = doc.addPage([595, 842]);
    lines.forEach((l, i) => page.drawText(l, { x: 50, y: 780 - i * 24, size: i === 0 ? 18 : 12, font }));
  }
  return doc.save();
}

// Only HOME and TMPDIR are set, to folders of the work dir: the natives are unpacked from the
// executable into HOME/.cache/kbqa/runtime, so no cache left by an earlier run can help.
const ENV = "/usr/bin/env";
const kbqa = (work: string) => [ENV, "-i", `HOME=${join(work, "home")}`, `TMPDIR=${join(work, "tmp")}`, "./kbqa"];
const run = async (work: string, args: string[]) => {
  const p = Bun.spawn([...kbqa(work), ...args], { cwd: work, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, stdout, stderr };
};

async function poll<T>(fn: () => Promise<T | undefined | false>, what: string, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const v = await fn();
    if (v) return v;
    await Bun.sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

export async function roundTrip(work: string): Promise<Record<string, unknown>> {
  const report: Record<string, unknown> = {};
  mkdirSync(join(work, "tmp"));
  mkdirSync(join(work, "home"));
  const selftest = await run(work, ["selftest", "--models", "./selftest-models"]);
  report.selftest = { code: selftest.code, result: JSON.parse(selftest.stdout.trim().split("\n").pop() || "{}") };
  const models = await run(work, ["models", "list", "--models", "./selftest-models"]);
  report.models = { code: models.code, ids: models.code === 0 ? (JSON.parse(models.stdout) as { id: string }[]).map((m) => m.id).sort() : models.stderr };
  report.help = (await run(work, ["--help"])).stdout.includes("kbqa serve");

  const t0 = performance.now();
  const server = Bun.spawn([...kbqa(work), "serve", "--port", "0"], { cwd: work, stdout: "pipe", stderr: "pipe" });
  let err = "";
  void (async () => {
    for await (const c of server.stderr as ReadableStream<Uint8Array>) err += new TextDecoder().decode(c);
  })();
  try {
    const reader = (server.stdout as ReadableStream<Uint8Array>).getReader();
    let out = "";
    const url = await poll(async () => {
      const { value, done } = await reader.read();
      if (done) throw new Error(`server exited before listening:\n${err}`);
      out += new TextDecoder().decode(value);
      return /kbqa listening on (http:\/\/\S+)\n/.exec(out)?.[1];
    }, "the listening line", 60_000);
    reader.releaseLock();
    report.listeningMs = Math.round(performance.now() - t0);
    const port = new URL(url).port;
    report.ping = (await run(work, ["ping", "--port", port])).code;
    report.pingWrongPort = (await run(work, ["ping", "--url", "http://127.0.0.1:1"])).code;

    const org = await run(work, ["org", "create", "roundtrip"]);
    if (org.code !== 0) throw new Error(`org create: ${org.stderr}`);
    const orgId = JSON.parse(org.stdout).id as string;
    const keys = await generateKeyPair("RS256", { modulusLength: 2048 });
    writeFileSync(join(work, "rt.pem"), await exportSPKI(keys.publicKey));
    const key = await run(work, ["key", "add", "--org", orgId, "--public-key", "rt.pem"]);
    if (key.code !== 0) throw new Error(`key add: ${key.stderr}`);
    const kid = JSON.parse(key.stdout).kid as string;
    const jwt = await new SignJWT({}).setProtectedHeader({ alg: "RS256", kid }).setSubject("rt-user").setIssuedAt().setExpirationTime("10m").sign(keys.privateKey);
    const api = async (method: string, path: string, body?: unknown) => {
      const r = await fetch(url + path, {
        method,
        headers: { authorization: `Bearer ${jwt}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await r.text();
      let parsed: any = text;
      try {
        parsed = JSON.parse(text);
      } catch {}
      if (r.status >= 300) throw new Error(`${method} ${path} → ${r.status} ${text.slice(0, 300)}`);
      return parsed;
    };
    report.ping = (await fetch(url + "/pub/ping")).status === 200 ? report.ping : "http-failed";
    // The API reference page and its Swagger UI files, embedded in the executable (no CDN).
    const docsPage = await fetch(url + "/docs");
    const bundle = await fetch(url + "/docs/assets/swagger-ui-bundle.js");
    report.docs = { page: docsPage.status, bundle: bundle.status, bundleBytes: (await bundle.arrayBuffer()).byteLength > 100_000 };

    const corpus = await api("POST", "/v1/corpus/", { name: "roundtrip" });
    const pdf = await makePdf(PAGES);
    const init = await api("POST", "/v1/doc/init", {
      corpusId: corpus.id, filename: "notes.pdf", contentType: "application/pdf",
      chunk: { multipage_sections: false, combine_text_under_n_chars: 0 },
    });
    const uploadUrl = String(init.uploadUrl).startsWith("http") ? init.uploadUrl : url + init.uploadUrl;
    report.upload = (await fetch(uploadUrl, { method: "PUT", headers: { "content-type": "application/pdf" }, body: pdf as Uint8Array<ArrayBuffer> })).status;
    const docId = init.document.id as string;
    await api("POST", `/v1/doc/${docId}/commit`);
    const doc = await poll(async () => {
      const d = await api("GET", `/v1/doc/${docId}`);
      if (d.status === "FAILED") throw new Error(`ingestion FAILED: ${d.statusMsg}`);
      return d.status === "READY" && d;
    }, "document READY", 180_000);
    report.document = { status: doc.status, nbPages: doc.nbPages };

    // A DOCX goes through mammoth, which the conversion also reaches by an internal module path
    // (convert/docx.ts): the bundle must carry it.
    // (In a corpus of its own, so that the question below can only cite the PDF.)
    const wordCorpus = await api("POST", "/v1/corpus/", { name: "roundtrip docx" });
    const word = await api("POST", "/v1/doc/init", {
      corpusId: wordCorpus.id, filename: "report.docx", contentType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    });
    const wordUrl = String(word.uploadUrl).startsWith("http") ? word.uploadUrl : url + word.uploadUrl;
    await fetch(wordUrl, { method: "PUT", headers: { "content-type": "application/vnd.openxmlformats-officedocument.wordprocessingml.document" }, body: (await docx()) as Uint8Array<ArrayBuffer> });
    await api("POST", `/v1/doc/${word.document.id}/commit`);
    const wordDoc = await poll(async () => {
      const d = await api("GET", `/v1/doc/${word.document.id}`);
      return (d.status === "READY" || d.status === "FAILED") && d;
    }, "DOCX ingested", 180_000);
    const wordChunks = await api("GET", `/v1/chunk/q?${new URLSearchParams({ documentId: word.document.id, body: "true" })}`);
    report.docx = {
      status: wordDoc.status,
      ...(wordDoc.status === "FAILED" ? { statusMsg: wordDoc.statusMsg } : {}),
      heading: (wordChunks.items as { body: string }[]).some((c) => c.body.includes("Annual Report")),
    };

    const session = await api("POST", "/v1/session/", { corpusIds: [corpus.id] });
    const qa = await api("GET", `/v1/post/q?${new URLSearchParams({ sessionId: session.id, body: FACT_QUESTION })}`);
    const attachments = await api("GET", `/v1/post/attachment/${qa.answer.id}`);
    report.answer = {
      mentionsFact: /vermilion/i.test(String(qa.answer.body)),
      pages: [...new Set((attachments as { pages: number[] }[]).flatMap((a) => a.pages))].sort(),
      docIds: (attachments as { docId: string }[]).map((a) => a.docId),
      docId,
    };

    const previews = await api("GET", `/v1/doc/${docId}/preview-urls?pages=1`);
    const items = (previews.items ?? previews) as { page: number; size: string; url: string }[];
    const medium = items.find((i) => i.size === "MEDIUM" && i.page === 1);
    if (!medium) throw new Error(`no MEDIUM preview of page index 1 in ${JSON.stringify(previews)}`);
    const tile = await poll(async () => {
      const r = await fetch(medium.url.startsWith("http") ? medium.url : url + medium.url);
      if (r.status === 404) return undefined;
      return { status: r.status, type: r.headers.get("content-type"), bytes: new Uint8Array(await r.arrayBuffer()) };
    }, "the MEDIUM preview tile", 120_000);
    report.preview = {
      status: tile.status,
      type: tile.type,
      png: String.fromCharCode(...tile.bytes.subarray(1, 4)),
      width: new DataView(tile.bytes.buffer, tile.bytes.byteOffset).getUint32(16),
    };
  } catch (e) {
    report.error = String((e as Error).stack ?? e);
  } finally {
    server.kill("SIGTERM");
    report.exitCode = await server.exited;
    report.tmpFiles = readdirSync(join(work, "tmp"));
    const runtime = join(work, "home", ".cache", "kbqa", "runtime");
    report.unpacked = readdirSync(runtime).flatMap((id) => readdirSync(join(runtime, id))).sort();
    report.serverStderr = err.slice(-2000);
  }
  return report;
}

if (import.meta.main) {
  const work = process.argv[2];
  if (!work) throw new Error("usage: driver.ts WORKDIR");
  const r = await roundTrip(work);
  // The interfaces of this process's network namespace (the server's too): only "lo" when cut off.
  r.interfaces = (await Bun.file("/proc/self/net/dev").text()).split("\n").slice(2).map((l) => l.split(":")[0]!.trim()).filter(Boolean);
  console.log(JSON.stringify(r));
}
