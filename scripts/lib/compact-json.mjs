// JSON for files people read in diffs: a value that fits on one line within WIDTH characters (its
// indentation included) is written on one line, anything larger one member or item per line.
// Deterministic for a given value, so a regenerated file is byte for byte the same.
const WIDTH = 120;

function layout(value, indent) {
  const oneLine = JSON.stringify(value);
  if (value === null || typeof value !== "object" || indent.length + oneLine.length <= WIDTH) return oneLine;
  const inner = `${indent}  `;
  const lines = Array.isArray(value)
    ? value.map((item) => `${inner}${layout(item ?? null, inner)}`)
    : Object.entries(value)
        .filter(([, member]) => JSON.stringify(member) !== undefined)
        .map(([key, member]) => `${inner}${JSON.stringify(key)}: ${layout(member, inner)}`);
  const [open, close] = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
  return lines.length ? `${open}\n${lines.join(",\n")}\n${indent}${close}` : `${open}${close}`;
}

export function compactJson(value) {
  return `${layout(value, "")}\n`;
}
