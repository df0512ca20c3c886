/**
 * A raw HTTP/1.1 request over TCP, for request targets fetch() would normalise away
 * ("..", "%2e%2e", backslashes). Returns the status line's code and the body text.
 */
import { connect } from "node:net";

export function rawRequest(baseUrl: string, method: string, target: string, headers: Record<string, string> = {}, body = ""): Promise<{ status: number; text: string }> {
  const u = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const s = connect(Number(u.port), u.hostname);
    let buf = "";
    s.setEncoding("latin1");
    s.on("data", (d) => (buf += d));
    s.on("error", reject);
    s.on("close", () => {
      const m = /^HTTP\/1\.1 (\d{3})/.exec(buf);
      if (!m) return reject(new Error(`no HTTP response: ${JSON.stringify(buf.slice(0, 200))}`));
      resolve({ status: Number(m[1]), text: buf.slice(buf.indexOf("\r\n\r\n") + 4) });
    });
    const h = { host: u.host, connection: "close", "content-length": String(Buffer.byteLength(body)), ...headers };
    s.write(`${method} ${target} HTTP/1.1\r\n${Object.entries(h).map(([k, v]) => `${k}: ${v}`).join("\r\n")}\r\n\r\n${body}`);
  });
}
