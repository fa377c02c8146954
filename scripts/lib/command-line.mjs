// The command-line handling every script shares: --help, and a usage line on any mistake (exit 2).
import { parseArgs } from "node:util";

/** The options of `process.argv` (no positionals), or exit: 0 with the usage for --help, 2 with it for anything wrong. */
export function commandLine(options, usage) {
  let values;
  try {
    ({ values } = parseArgs({ options: { ...options, help: { type: "boolean", short: "h", default: false } }, strict: true, allowPositionals: false }));
  } catch (error) {
    fail(error.message, usage);
  }
  if (values.help) {
    console.error(usage);
    process.exit(0);
  }
  return values;
}

/** Prints `message` and the usage, and exits 2. */
export function fail(message, usage) {
  console.error(`${message}\n${usage}`);
  process.exit(2);
}
