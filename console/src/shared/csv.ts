import { neutralizeCell } from "@campaign-policy/common/csv-cells";

/** Tables the console reads from a paste or a file, and writes for a download. */

/**
 * Rows of a CSV (comma or semicolon) or tab-separated text, as a spreadsheet copies it: the
 * separator is the one the first line uses, double quotes enclose a field ("" is a quote), blank
 * lines are skipped.
 */
export function parseTable(text: string): string[][] {
  const firstLine = text.slice(0, text.search(/\r?\n|$/));
  const separator = firstLine.includes("\t") ? "\t" : firstLine.includes(";") && !firstLine.includes(",") ? ";" : ",";
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"' && field === "") quoted = true;
    else if (char === separator) {
      row.push(field);
      field = "";
    } else if (char === "\n" || char === "\r") {
      if (char === "\r" && text[i + 1] === "\n") i++;
      row.push(field);
      field = "";
      if (row.some((cell) => cell.trim() !== "")) rows.push(row);
      row = [];
    } else field += char;
  }
  row.push(field);
  if (row.some((cell) => cell.trim() !== "")) rows.push(row);
  return rows.map((cells) => cells.map((cell) => cell.trim()));
}

/** Whether the first row names columns (it holds one of these names) rather than data. */
export function hasHeader(rows: string[][], names: readonly string[]) {
  return rows.length > 0 && rows[0].some((cell) => names.includes(cell));
}

/** A cell as written: a text a spreadsheet could run as a formula is neutralized as the API's exports do. */
const quote = (value: unknown) => {
  const text = value === null || value === undefined ? "" : typeof value === "string" ? neutralizeCell(value) : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

/** A CSV text: a header row, then one row per record. */
export function toCsv(header: readonly string[], rows: readonly (readonly unknown[])[]) {
  return `${[header, ...rows].map((row) => row.map(quote).join(",")).join("\n")}\n`;
}

/** Saves a text (or a file's bytes) as a file the browser downloads. */
export function download(name: string, content: string | Blob, type = "text/csv") {
  const url = URL.createObjectURL(typeof content === "string" ? new Blob([content], { type }) : content);
  const link = Object.assign(document.createElement("a"), { href: url, download: name });
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
