// The one rule for text that names something (codes, external ids, account, supplier, store and user
// ids, ids of the API's own rows), shared as is by the Worker (src/platform/schema/fields.ts, which builds
// every id schema on it) and `npm run key` (scripts/lib/keys.mjs, for --user). Types:
// identifier-text.d.mts.
//
// Two spellings that look the same are one id: text is kept and compared in Unicode NFC ("É" as
// one code point, not "E" and a combining accent). Characters that cannot be seen or that change
// how text around them is shown are refused: control characters (\p{Cc}: NUL, CR, LF, backspace…),
// format characters (\p{Cf}: zero-width space U+200B, right-to-left override U+202E, byte order
// mark U+FEFF…) and lone surrogates (\p{Cs}: half of a UTF-16 pair, which no character is).

const FORBIDDEN_CHARACTER = /[\p{Cc}\p{Cf}\p{Cs}]/u;

const KINDS = [
  [/\p{Cc}/u, "a control character"],
  [/\p{Cf}/u, "a format character"],
  [/\p{Cs}/u, "a lone surrogate"],
];

/** Why `text` cannot name anything (which character, where), or undefined when it can. */
export function identifierProblem(text) {
  const found = FORBIDDEN_CHARACTER.exec(text);
  if (!found) return undefined;
  const codePoint = `U+${found[0].codePointAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
  const kind = KINDS.find(([pattern]) => pattern.test(found[0]))[1];
  return `contains ${codePoint} (${kind}) at position ${found.index}: control characters, format characters and lone surrogates are not allowed`;
}

/**
 * How long text is, the one way every limit of the API counts it: characters (code points, as JSON
 * Schema's maxLength does) of its NFC form, so "é" is one whichever way it was sent, and so is an emoji.
 */
export function characterCount(text) {
  let count = 0;
  for (const _ of text.normalize("NFC")) count++;
  return count;
}

/** The one spelling `text` is stored and compared in. */
export function canonicalIdentifier(text) {
  return text.normalize("NFC");
}
