// A real HTTP receiver for webhook deliveries, run in Node beside the Worker (tests and bench).
// POST /hooks/<mode>/<token> records the request and answers as <mode> says:
//   ok          200
//   fail-<n>    500 to the first n requests of the token, then 200
//   always-500  500
//   slow-<ms>   waits <ms> before answering 200
// GET /log/<token> answers the token's records: [{ headers, body, receivedAt, answered }].
import { createServer } from "node:http";

export async function startWebhookReceiver({ port = 0 } = {}) {
  const records = new Map();
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://receiver");
    const [, kind, first, second] = url.pathname.split("/");
    if (request.method === "GET" && kind === "log") {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(records.get(first) ?? []));
      return;
    }
    if (request.method !== "POST" || kind !== "hooks" || !second) {
      response.writeHead(404).end();
      return;
    }
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => {
      const receivedAt = Date.now();
      const seen = records.get(second) ?? [];
      records.set(second, seen);
      const mode = first;
      let status = 200;
      let delay = 0;
      if (mode === "always-500") status = 500;
      else if (mode.startsWith("fail-")) status = seen.length < Number(mode.slice(5)) ? 500 : 200;
      else if (mode.startsWith("slow-")) delay = Number(mode.slice(5));
      seen.push({ headers: request.headers, body: Buffer.concat(chunks).toString("utf8"), receivedAt, answered: status });
      setTimeout(() => response.writeHead(status, { "content-type": "text/plain" }).end(status === 200 ? "ok" : "no"), delay);
    });
  });
  await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
  server.unref();
  const { port: bound } = server.address();
  return {
    url: `http://127.0.0.1:${bound}`,
    records,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
