/*
 * The cells of every CSV the project writes, the API's exports and the console's downloads alike.
 *
 * Spreadsheet formula injection (OWASP "CSV Injection"): a cell starting with =, +, -, @, a tab or a
 * carriage return may run as a formula when the file is opened. Export prefixes such cells with a
 * single quote (plain numbers such as -5 stay as they are), and import takes exactly that prefix off
 * again, so a file exported by the service imports back unchanged. A value that itself starts with
 * quotes before such a character gets one more quote, so the mapping stays one to one.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function needsGuard(value: string): boolean {
  return (FORMULA_START.test(value) && !PLAIN_NUMBER.test(value)) || (value.startsWith("'") && needsGuard(value.slice(1)));
}

/** A cell as exported: neutralized if a spreadsheet could run it. */
export function neutralizeCell(value: string): string {
  return needsGuard(value) ? `'${value}` : value;
}

/** A cell as imported: the export's neutralizing quote taken off. */
export function restoreCell(value: string): string {
  return value.startsWith("'") && needsGuard(value.slice(1)) ? value.slice(1) : value;
}
