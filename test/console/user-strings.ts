import ts from "typescript";

/**
 * The words a console source shows people outside the catalogs (console/messages): text between
 * tags, a literal in a prop people read or hear (aria-label, title, placeholder, alt, a label…),
 * a literal child (`{"Save"}`, `{busy ? "Saving…" : "Save"}`), a literal given to a helper
 * that says something (a status line, an undo step's name, a button's label), and anywhere else, in
 * a .ts module too, a phrase (two words with a space between: a sentence kept in a constant or
 * returned by a function). Words come from `t("key")`; a code (`DRAFT`, `OPERATOR`) or a sign (`—`,
 * `·`, `→`) is not a word.
 */

/** Props people neither read nor hear: a literal there is markup, an address or a value (`file`: a download's name, as `download`). */
const UNSEEN_PROPS = new Set([
  "file",
  "className",
  "current",
  "known",
  "setting",
  "of",
  "view",
  "scope",
  "cellIdPrefix",
  "readOnlyNoteId",
  "initialField",
  "type",
  "role",
  "id",
  "key",
  "name",
  "to",
  "href",
  "htmlFor",
  "autoComplete",
  "inputMode",
  "lang",
  "dir",
  "value",
  "defaultValue",
  "pattern",
  "accept",
  "rel",
  "target",
  "step",
  "min",
  "max",
  "form",
  "list",
  "wrap",
  "spellCheck",
  "encType",
  "method",
  "style",
  "src",
  "download",
  "viewBox",
  "d",
  "fill",
  "stroke",
  "textAnchor",
  "dominantBaseline",
  "preserveAspectRatio",
  "xmlns",
]);
/** The aria props that name or describe (the others hold ids, states and tokens). */
const SPOKEN_ARIA = new Set(["aria-label", "aria-description", "aria-valuetext", "aria-roledescription", "aria-placeholder", "aria-braillelabel"]);
/** The console's helpers that say something: a status line, a note, an undo step's name, a save button's label. */
export const NOTICE_HELPERS = new Set(["say", "setNote", "setSaveNote", "setStatus", "setMessage", "announce", "change", "commit", "saveLabel"]);

/** A word: two letters or more that are not a code (DRAFT, ACCOUNT, SKU_1) nor an API field name (variantName). */
const isWords = (text: string) =>
  text.split(/[^\p{L}\p{N}_-]+/u).some((token) => /\p{L}{2,}/u.test(token) && !/^[A-Z][A-Z0-9_-]*$/.test(token) && !/^[a-z]+[A-Z][A-Za-z0-9]*$/.test(token));
const literalWords = (node: ts.Node) =>
  (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && isWords(node.text)
    ? true
    : ts.isTemplateExpression(node) && isWords([node.head.text, ...node.templateSpans.map((span) => span.literal.text)].join(" "));

/** Two words with a space between: what a sentence has, and a selector, a size or a list of codes lacks. */
const PHRASE = /\p{L}{2,}[,;:.]? +[("']?\p{L}{2,}/u;
/** Calls whose literals nobody reads: a developer's error, a symbol's name, a CSS selector. */
const UNSAID_CALLS = new Set(["Error", "Symbol", "querySelector", "querySelectorAll", "closest", "matches"]);
const calleeName = (call: ts.CallExpression | ts.NewExpression) =>
  ts.isPropertyAccessExpression(call.expression) ? call.expression.name.text : call.expression.getText();
/** A literal's text, a template's parts joined by a digit where its values go (`${n} rows` reads "0 rows"). */
const literalText = (node: ts.Node) =>
  ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)
    ? node.text
    : ts.isTemplateExpression(node)
      ? [node.head.text, ...node.templateSpans.map((span) => span.literal.text)].join("0")
      : null;

export interface UserString {
  line: number;
  where: string;
  text: string;
}

const COMPARISONS = new Set([
  ts.SyntaxKind.EqualsEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsEqualsToken,
  ts.SyntaxKind.EqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsToken,
]);

/** Every literal with words below `node`, not looking into calls (their own words are checked where they are said), functions, nor comparisons (`status === "below"`). */
function literalsIn(node: ts.Node, found: ts.Node[] = []): ts.Node[] {
  if (ts.isBinaryExpression(node) && COMPARISONS.has(node.operatorToken.kind)) return found;
  if (literalWords(node)) found.push(node);
  else if (
    !ts.isCallExpression(node) &&
    !ts.isArrowFunction(node) &&
    !ts.isFunctionExpression(node) &&
    !ts.isJsxElement(node) &&
    !ts.isJsxSelfClosingElement(node)
  )
    ts.forEachChild(node, (child) => void literalsIn(child, found));
  return found;
}

export function userStrings(fileName: string, source: string): UserString[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, fileName.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: UserString[] = [];
  const report = (node: ts.Node, where: string) =>
    found.push({ line: file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1, where, text: node.getText(file).replace(/\s+/g, " ").trim() });
  const visit = (node: ts.Node) => {
    if (ts.isJsxText(node)) {
      if (isWords(node.text)) report(node, "text");
    } else if (ts.isJsxAttribute(node)) {
      const prop = node.name.getText(file);
      const shown = prop.startsWith("aria-") ? SPOKEN_ARIA.has(prop) : !UNSEEN_PROPS.has(prop) && !prop.startsWith("data-") && !/^on[A-Z]/.test(prop);
      if (shown && node.initializer) for (const literal of literalsIn(node.initializer)) report(literal, prop);
    } else if (ts.isJsxExpression(node) && node.expression && (ts.isJsxElement(node.parent) || ts.isJsxFragment(node.parent))) {
      for (const literal of literalsIn(node.expression)) report(literal, "child");
    } else if (ts.isCallExpression(node)) {
      const callee = ts.isPropertyAccessExpression(node.expression) ? node.expression.name.text : node.expression.getText(file);
      if (NOTICE_HELPERS.has(callee)) for (const argument of node.arguments) for (const literal of literalsIn(argument)) report(literal, `${callee}()`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  const reported = new Set(found.map(({ line, text }) => `${line} ${text}`));
  const phrases = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node) || ts.isJsxAttribute(node) || ts.isLiteralTypeNode(node)) return;
    if (ts.isBinaryExpression(node) && COMPARISONS.has(node.operatorToken.kind)) return;
    if ((ts.isCallExpression(node) || ts.isNewExpression(node)) && UNSAID_CALLS.has(calleeName(node))) return;
    const text = literalText(node);
    if (text !== null && PHRASE.test(text)) {
      const line = file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
      const shown = node.getText(file).replace(/\s+/g, " ").trim();
      if (!reported.has(`${line} ${shown}`)) found.push({ line, where: "phrase", text: shown });
    }
    ts.forEachChild(node, phrases);
  };
  phrases(file);
  return found;
}
