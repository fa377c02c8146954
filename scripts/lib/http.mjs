// The one way the scripts call a server: a JSON body out, the answer's status and body (parsed as JSON
// when it is, else its text) back.

/** `method` `url` with `headers` and `body` (sent as JSON when given) → { ok, status, body, text }. */
export async function requestJson(url, { method = "GET", headers = {}, body, timeoutMs = 30_000 } = {}) {
  const response = await fetch(url, {
    method,
    headers: { ...headers, ...(body !== undefined && { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  let parsed = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // keep the text
  }
  return { ok: response.ok, status: response.status, body: parsed, text };
}
