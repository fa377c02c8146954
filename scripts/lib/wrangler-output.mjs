// What `npm start` shows of wrangler dev: each line once. wrangler logs every request beside the
// Worker's own JSON request line, prints the binding table again on every reload, advertises
// updates of a deliberately pinned version and warns that crons do not run (they do: local-crons.mjs).
import { createInterface } from "node:readline";

// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC (\x1b) starts the colour codes this strips.
const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;
const REQUEST_LINE = /^\[wrangler:info\] (GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS) \S+ \d{3}/;
const BINDINGS_START = /^Your Worker has access to the following bindings:/;
const CRON_WARNING_START = /Scheduled Workers are not automatically triggered/;
const CRON_WARNING_END = /^\s*For more details, see /;
const UPDATE_NOTICE = / \(update available [^)]*\)/;

/** A line filter over wrangler's output: `accept(line)` returns the line to print, or null. */
export function wranglerOutputFilter() {
  const seenTables = new Set();
  let table = null;
  let inCronWarning = false;
  let afterDroppedBlock = false;
  return (rawLine) => {
    const line = rawLine.replace(ANSI, "");
    // The blank lines that closed a dropped block go with it.
    if (afterDroppedBlock && line.trim() === "") return null;
    afterDroppedBlock = false;
    if (table !== null) {
      if (line.trim() === "") {
        const text = table.join("\n");
        table = null;
        if (seenTables.has(text)) return null;
        seenTables.add(text);
        return `${text}\n`;
      }
      table.push(rawLine);
      return null;
    }
    if (inCronWarning) {
      if (CRON_WARNING_END.test(line)) inCronWarning = false;
      afterDroppedBlock = !inCronWarning;
      return null;
    }
    if (BINDINGS_START.test(line)) {
      table = [rawLine];
      return null;
    }
    if (CRON_WARNING_START.test(line)) {
      inCronWarning = true;
      return null;
    }
    if (REQUEST_LINE.test(line)) return null;
    return rawLine.replace(UPDATE_NOTICE, "");
  };
}

/** Copies `stream` to `out` line by line through a fresh filter. */
export function pipeFiltered(stream, out) {
  const accept = wranglerOutputFilter();
  createInterface({ input: stream, crlfDelay: Infinity }).on("line", (line) => {
    const kept = accept(line);
    if (kept !== null) out.write(`${kept}\n`);
  });
}
