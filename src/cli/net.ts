import { createServer } from "node:net";
import { isIP } from "node:net";
import { lookup } from "node:dns/promises";
import { isHttpUrl } from "../config.ts";
import { CliFailure, UsageError } from "./errors.ts";

/** The value of a URL flag, refused in words unless it is an http(s) URL. */
export function httpUrlFlag(flag: string, value: string): string {
  if (!isHttpUrl(value)) throw new UsageError(`--${flag}: must be an http:// or https:// URL, got "${value}"`);
  return value;
}

/** Why fetch() could not reach a server, in words; undefined when the error is not a connection error. */
export function connectionReason(e: unknown): string | undefined {
  const err = e as { code?: string; name?: string };
  if (err?.name === "TimeoutError") return "no answer in time";
  const known: Record<string, string> = {
    ConnectionRefused: "connection refused",
    ECONNREFUSED: "connection refused",
    ConnectionClosed: "the connection was closed",
    ECONNRESET: "the connection was reset",
    ENOTFOUND: "host not found",
    DNSError: "host not found",
    FailedToOpenSocket: "could not open a connection",
    EHOSTUNREACH: "host unreachable",
    ENETUNREACH: "network unreachable",
    ETIMEDOUT: "connection timed out",
  };
  if (err?.code && known[err.code]) return known[err.code];
  if (err?.code && /CERT|TLS|SSL/i.test(err.code)) return `TLS certificate problem: ${err.code}`;
  return undefined;
}

/** `kbqa ping`: resolves when GET url/pub/ping answers 200, else throws a CliFailure saying why. */
export async function ping(url: string, timeoutMs = 5000): Promise<void> {
  const target = new URL("/pub/ping", url).href;
  let res: Response;
  try {
    res = await fetch(target, { signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer();
  } catch (e) {
    if ((e as Error)?.name === "TimeoutError") throw new CliFailure(`no answer from ${url} within ${timeoutMs / 1000} s`);
    throw new CliFailure(`could not connect to ${url} (${connectionReason(e) ?? "network error"})`);
  }
  if (res.status !== 200) throw new CliFailure(`GET ${target} answered ${res.status}`);
}

/**
 * Why the server could not listen on host:port, in words. Bun's own error always guesses "port in
 * use"; a plain socket tried on the same address gets the real errno (the server is not running,
 * so nothing else is disturbed).
 */
export async function whyCannotListen(host: string, port: number): Promise<string> {
  const at = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  if (!isIP(host)) {
    const resolved = await lookup(host).then(() => true, () => false);
    if (!resolved) return `cannot listen on ${at}: the host name ${host} does not resolve (--host)`;
  }
  const code = await new Promise<string | undefined>((done) => {
    const s = createServer();
    s.once("error", (e: NodeJS.ErrnoException) => done(e.code ?? "unknown error"));
    s.listen({ host, port }, () => s.close(() => done(undefined)));
  });
  switch (code) {
    case "EADDRINUSE":
      return `cannot listen on ${at}: the address is already in use (--host, --port)`;
    case "EADDRNOTAVAIL":
      return `cannot listen on ${at}: ${host} is not an address of this machine (--host)`;
    case "EACCES":
      return `cannot listen on ${at}: permission denied (ports below 1024 need privileges; --port)`;
    case undefined:
      return `cannot listen on ${at} (it is free now: try again)`;
    default:
      return `cannot listen on ${at} (${code})`;
  }
}
