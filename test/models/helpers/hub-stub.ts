// A local hub in the Hugging Face URL layout: /{repo}/resolve/{revision}/{path}, with HEAD
// (x-linked-etag = sha256), Range requests, and a switch to drop a connection mid-file.
// A minimal HTTP/1.1 server on node:net (one request per connection) because a test needs to
// cut the socket mid-body after announcing the full Content-Length, as a real network failure does.
import { createHash } from "node:crypto";
import { createServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

export interface HubStub {
  url: string;
  requests: { method: string; path: string; range: string | null }[];
  dropNext: Set<string>; // paths whose next GET is cut after half the bytes
  stop: () => void;
}

const REASON: Record<number, string> = { 200: "OK", 206: "Partial Content", 404: "Not Found", 416: "Range Not Satisfiable" };

function respond(sock: Socket, status: number, headers: Record<string, string>, body?: Uint8Array, cutAt?: number) {
  const head = [`HTTP/1.1 ${status} ${REASON[status]}`, ...Object.entries({ ...headers, connection: "close" }).map(([k, v]) => `${k}: ${v}`), "", ""].join("\r\n");
  sock.write(head);
  if (!body || cutAt === undefined) {
    if (body) sock.write(body);
    sock.end();
    return;
  }
  // Let the client take the headers and the first half as a normal streaming response before
  // the connection dies; a FIN in the same read makes Bun's fetch reject without any body.
  sock.write(body.subarray(0, cutAt), () => setTimeout(() => sock.destroy(), 50));
}

export async function startHubStub(files: Record<string, Uint8Array>, opts: { wrongEtag?: Set<string> } = {}): Promise<HubStub> {
  const requests: HubStub["requests"] = [];
  const dropNext = new Set<string>();
  const server = createServer((sock) => {
    let buf = "";
    sock.on("data", (d) => {
      buf += d.toString("latin1");
      if (!buf.includes("\r\n\r\n")) return;
      const [line, ...lines] = buf.split("\r\n\r\n")[0]!.split("\r\n");
      const [method, rawPath] = line!.split(" ");
      const hdrs = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]));
      const path = decodeURIComponent(new URL(rawPath!, "http://x").pathname);
      const range: string | null = hdrs.range ?? null;
      requests.push({ method: method!, path, range });
      const body = files[path];
      if (!body) return respond(sock, 404, { "content-length": "7" }, new TextEncoder().encode("missing"));
      const sha = opts.wrongEtag?.has(path) ? "0".repeat(64) : createHash("sha256").update(body).digest("hex");
      const headers: Record<string, string> = { "x-linked-etag": `"${sha}"`, etag: `"${sha}"`, "accept-ranges": "bytes" };
      if (method === "HEAD") return respond(sock, 200, { ...headers, "content-length": String(body.length) });
      const start = range ? Number(range.match(/bytes=(\d+)-/)![1]) : 0;
      if (start >= body.length) return respond(sock, 416, { "content-length": "0" });
      const slice = body.subarray(start);
      if (range) headers["content-range"] = `bytes ${start}-${body.length - 1}/${body.length}`;
      const cut = dropNext.delete(path) ? Math.floor(slice.length / 2) : undefined;
      respond(sock, range ? 206 : 200, { ...headers, "content-length": String(slice.length) }, slice, cut);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests, dropNext, stop: () => server.close() };
}
