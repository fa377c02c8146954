// Clients that hang up while sending a body: what killed `wrangler dev` 4.114.0–4.129.0.
import { connect } from "node:net";

const MiB = 1 << 20;

export const DROPPED_UPLOADS = [
  {
    name: "Content-Length longer than the body",
    head: `POST /v1/operations HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${MiB}\r\n\r\n`,
    pieces: () => [Buffer.alloc(1024, 97)],
  },
  {
    name: "chunked upload over 8 MiB, dropped after its 413",
    head: "POST /v1/operations HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
    pieces: () => Array.from({ length: 9 }, () => `${MiB.toString(16)}\r\n${"a".repeat(MiB)}\r\n`),
  },
];

/** Sends the upload's head, then its pieces, then closes the socket without finishing. */
export function dropMidBody(port, { head, pieces }) {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1", async () => {
      socket.write(head);
      for (const piece of pieces()) {
        socket.write(piece);
        await new Promise((wait) => setTimeout(wait, 20));
      }
      socket.destroy();
      resolve();
    });
    socket.on("error", () => resolve());
  });
}
