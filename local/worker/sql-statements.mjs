// How SQLite reads a SQL script into statements, with no I/O: shared by the local migrations
// (scripts/lib/local-migrations.mjs) and the local server's SQL route (operator-routes.ts), which
// takes one statement only. Types: sql-statements.d.mts.
const isTriggerStart = (words) => words[0] === "CREATE" && (words[1] === "TRIGGER" || (/^TEMP(ORARY)?$/.test(words[1] ?? "") && words[2] === "TRIGGER"));

/**
 * The statements of a SQL script, split at each semicolon outside quotes and comments; a CREATE TRIGGER
 * runs on to the "; END;" that closes its body (as SQLite reads a script: a CASE … END inside the body
 * does not end it). Stretches holding only comments are left out.
 */
export function splitSqlStatements(sql) {
  const statements = [];
  // The current statement's words (keywords upper-cased; a quoted string or name, a sign, each one) and where its first began.
  let words = [];
  let start = 0;
  const word = (token, at) => {
    if (!words.length) start = at;
    words.push(token);
  };
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    if (c === "-" && sql[i + 1] === "-") {
      const end = sql.indexOf("\n", i);
      i = end < 0 ? sql.length : end + 1;
    } else if (c === "/" && sql[i + 1] === "*") {
      const end = sql.indexOf("*/", i + 2);
      i = end < 0 ? sql.length : end + 2;
    } else if (c === "'" || c === '"' || c === "`" || c === "[") {
      word("'", i);
      const close = c === "[" ? "]" : c;
      for (i++; i < sql.length; i++) {
        if (sql[i] !== close) continue;
        // A quote doubled inside a quoted string or name stands for itself.
        if (close !== "]" && sql[i + 1] === close) i++;
        else break;
      }
      i++;
    } else if (/[A-Za-z_]/.test(c)) {
      let end = i + 1;
      while (end < sql.length && /[A-Za-z0-9_$]/.test(sql[end])) end++;
      word(sql.slice(i, end).toUpperCase(), i);
      i = end;
    } else if (c === ";") {
      const inTrigger = isTriggerStart(words) && !(words.at(-1) === "END" && words.at(-2) === ";");
      if (inTrigger) word(";", i);
      else if (words.length) {
        statements.push(sql.slice(start, i).trim());
        words = [];
      }
      i++;
    } else {
      if (!/\s/.test(c)) word(c, i);
      i++;
    }
  }
  if (words.length) statements.push(sql.slice(start).trim());
  return statements;
}
