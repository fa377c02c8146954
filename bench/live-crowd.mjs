// A crowd of live connections in a process of its own, at the lowest CPU priority (bench/suites/live.mjs):
// it stands for browsers on other machines, reading their messages on cores the server does not need.
// Each arrival is kept as an epoch time in ms (performance.timeOrigin + performance.now(), comparable
// across processes); a message is never parsed, its version read from its first characters.

const now = () => performance.timeOrigin + performance.now();
const VERSION = /"version":(\d+)/;
let sockets = [];
/** Per socket, the arrival of each version it heard. */
let heard = [];
let waiting = null;

function settle() {
  if (!waiting) return;
  const times = heard.map((versions) => versions.get(waiting.version));
  if (times.some((time) => time === undefined)) return;
  process.send({ type: "heard", version: waiting.version, times });
  waiting = null;
}

process.on("message", async (command) => {
  if (command.type === "open") {
    heard = command.urls.map(() => new Map());
    sockets = await Promise.all(
      command.urls.map(
        (url, i) =>
          new Promise((resolve, reject) => {
            const socket = new WebSocket(url);
            socket.onerror = () => reject(new Error("a crowd connection failed"));
            socket.onmessage = ({ data }) => {
              const at = now();
              const head = data.slice(0, 120);
              if (head.startsWith('{"type":"hello"')) return resolve(socket);
              if (!head.startsWith('{"type":"changed"')) return;
              const version = Number(VERSION.exec(head)?.[1]);
              if (!heard[i].has(version)) heard[i].set(version, at);
              settle();
            };
          }),
      ),
    );
    process.send({ type: "opened", count: sockets.length });
  } else if (command.type === "await") {
    waiting = { version: command.version };
    settle();
  } else if (command.type === "close") {
    for (const socket of sockets) socket.close();
    process.send({ type: "closed" });
  }
});
