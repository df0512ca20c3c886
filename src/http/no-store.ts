/**
 * API answers hold one organization's data, chosen by a credential that may travel in
 * X-Access-Token, which shared caches do not treat as a credential (RFC 9111 3.5 names
 * Authorization only): without this, a proxy in front of the service could keep a listing fetched
 * with one token and serve it to the next client asking the same URL. Errors are marked too.
 * The presigned storage answers set their own header; the documentation's files stay cacheable.
 */
export function markNoStore(request: Request, set: { headers: Record<string, string | number> }): void {
  const url = request.url;
  const path = url.indexOf("/", url.indexOf("//") + 2);
  if (path >= 0 && (url.startsWith("/v1/", path) || url.startsWith("/webhook/", path))) {
    set.headers["cache-control"] = "no-store";
  }
}
