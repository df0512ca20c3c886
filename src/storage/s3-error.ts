/**
 * Storage answers like S3 so generic S3 tooling understands it: an XML <Error> document with
 * Code and Message. A client that asks for JSON (Accept: application/json) gets the API's
 * error object with the same `code` added.
 */
export type StorageErrorCode =
  | "AccessDenied"
  | "MethodNotAllowed"
  | "SignatureDoesNotMatch"
  | "PreconditionFailed"
  | "EntityTooLarge"
  | "NoSuchKey"
  | "InvalidArgument"
  | "InternalError"
  | "ServiceUnavailable"
  | "StorageFull";

const REASON: Record<number, string> = { 400: "Bad Request", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed", 412: "Precondition Failed", 413: "Payload Too Large", 500: "Internal Server Error", 503: "Service Unavailable", 507: "Insufficient Storage" };

const xmlEscape = (s: string) => s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function storageError(request: Request, status: number, code: StorageErrorCode, message: string, key: string): Response {
  const path = new URL(request.url).pathname;
  const headers: Record<string, string> = {};
  // A refused upload may leave body bytes unread; closing makes the client stop sending.
  if (request.method === "PUT" && status !== 200) headers.connection = "close";
  if ((request.headers.get("accept") ?? "").includes("application/json")) {
    headers["content-type"] = "application/json";
    const body = { timestamp: new Date().toISOString(), status, error: REASON[status] ?? "Error", message, path, code };
    return new Response(JSON.stringify(body), { status, headers });
  }
  headers["content-type"] = "application/xml";
  const xml =
    `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${xmlEscape(message)}</Message>` +
    `<Key>${xmlEscape(key)}</Key><RequestId>${crypto.randomUUID()}</RequestId></Error>`;
  return new Response(xml, { status, headers });
}
