// The compatibility of two versions of the /v1 contract: the OpenAPI document and the error
// catalogue. compareContracts() sorts every difference a client could notice into what breaks a
// client written against `before` and what such a client survives (docs/versioning.md). Pure documentation (descriptions, summaries, examples, tags, x- extensions,
// deprecation marks) is not compared.
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** Every class a breaking finding can have; the fixtures of test/node/compatibility.test.mjs cover each. */
export const BREAKING_CLASSES = [
  "route-removed",
  "parameter-removed",
  "request-field-removed",
  "response-field-removed",
  "enum-value-removed",
  "error-code-removed",
  "error-status-changed",
  "new-required-input",
  "narrowed-input",
  "type-changed",
  "status-changed",
];

/** Where each side of the comparison lives, relative to the repository root. */
export const CONTRACT_FILES = {
  current: { openapi: "client/openapi.json", errors: "client/error-catalogue.json" },
  accepted: { openapi: "spec/openapi.snapshot.json", errors: "spec/error-catalogue.snapshot.json" },
};

export function readContract(root, files) {
  return {
    openapi: JSON.parse(readFileSync(join(root, files.openapi), "utf8")),
    errors: JSON.parse(readFileSync(join(root, files.errors), "utf8")),
  };
}

/**
 * @typedef {{ class: string, pointer: string, message: string }} Finding
 * @returns {{ breaking: Finding[], additive: Finding[] }} additive holds every difference a client survives, widenings included
 */
export function compareContracts({ before, after }) {
  const findings = new Findings();
  compareRoutes({ beforeDoc: before.openapi, afterDoc: after.openapi, findings, walked: new Map() });
  compareCatalogues(before.errors ?? {}, after.errors ?? {}, findings);
  return findings.result();
}

export function formatFinding(finding) {
  return `${finding.class} ${finding.pointer}: ${finding.message}`;
}

class Findings {
  #seen = new Set();
  breaking = [];
  additive = [];

  add(list, kind, segments, sentence) {
    const message = sentence[0].toUpperCase() + sentence.slice(1);
    const finding = { class: kind, pointer: toPointer(segments), message };
    const key = `${kind} ${finding.pointer} ${message}`;
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    list.push(finding);
  }

  breaks(kind, segments, message) {
    this.add(this.breaking, kind, segments, message);
  }

  adds(kind, segments, message) {
    this.add(this.additive, kind, segments, message);
  }

  result() {
    return { breaking: this.breaking, additive: this.additive };
  }
}

function toPointer(segments) {
  return segments.map((segment) => `/${String(segment).replaceAll("~", "~0").replaceAll("/", "~1")}`).join("");
}

function fromPointer(pointer) {
  return pointer
    .split("/")
    .slice(1)
    .map((segment) => segment.replaceAll("~1", "/").replaceAll("~0", "~"));
}

/** Follows local $refs to their target; `component` names the last #/components/schemas entry passed through. */
function dereference(doc, value) {
  let component;
  for (let hops = 0; value && typeof value === "object" && typeof value.$ref === "string"; hops++) {
    const ref = value.$ref;
    if (hops > 64 || !ref.startsWith("#/")) throw new Error(`Cannot resolve $ref ${ref}`);
    const segments = fromPointer(ref.slice(1));
    if (segments.length === 3 && segments[0] === "components" && segments[1] === "schemas") component = segments[2];
    value = segments.reduce((node, segment) => node?.[segment], doc);
    if (value === undefined) throw new Error(`$ref ${ref} points to nothing`);
  }
  return { value, component };
}

export const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** Paths that differ only in their parameters' names are the same route on the wire. */
function routeShape(path) {
  return path.replace(/\{[^}]*\}/g, "{}");
}

function byRouteShape(paths) {
  return new Map(Object.keys(paths ?? {}).map((path) => [routeShape(path), path]));
}

function operationName(method, path, operation) {
  const name = `${method.toUpperCase()} ${path}`;
  return operation?.operationId ? `${name} (${operation.operationId})` : name;
}

function compareRoutes(run) {
  const { beforeDoc, afterDoc, findings } = run;
  const beforePaths = byRouteShape(beforeDoc.paths);
  const afterPaths = byRouteShape(afterDoc.paths);
  for (const [shape, beforePath] of beforePaths) {
    const beforeItem = dereference(beforeDoc, beforeDoc.paths[beforePath]).value;
    const afterPath = afterPaths.get(shape);
    if (afterPath === undefined) {
      const methods = HTTP_METHODS.filter((method) => beforeItem[method]).map((method) => method.toUpperCase());
      findings.breaks("route-removed", ["paths", beforePath], `${beforePath} is gone (it served ${methods.join(", ")}).`);
      continue;
    }
    const afterItem = dereference(afterDoc, afterDoc.paths[afterPath]).value;
    for (const method of HTTP_METHODS) {
      const where = ["paths", afterPath, method];
      if (beforeItem[method] && !afterItem[method]) {
        findings.breaks("route-removed", where, `${operationName(method, beforePath, beforeItem[method])} is gone.`);
      } else if (!beforeItem[method] && afterItem[method]) {
        findings.adds("route-added", where, `Added ${operationName(method, afterPath, afterItem[method])}.`);
      } else if (beforeItem[method]) {
        compareOperation(run, {
          route: `${method.toUpperCase()} ${afterPath}`,
          where,
          before: { item: beforeItem, operation: beforeItem[method] },
          after: { item: afterItem, operation: afterItem[method] },
        });
      }
    }
  }
  for (const [shape, afterPath] of afterPaths) {
    if (beforePaths.has(shape)) continue;
    const afterItem = dereference(afterDoc, afterDoc.paths[afterPath]).value;
    for (const method of HTTP_METHODS.filter((method) => afterItem[method])) {
      findings.adds("route-added", ["paths", afterPath, method], `Added ${operationName(method, afterPath, afterItem[method])}.`);
    }
  }
}

function compareOperation(run, operation) {
  compareParameters(run, operation);
  compareRequestBodies(run, operation);
  compareResponses(run, operation);
}

/** Path-level parameters apply unless the operation overrides them (same name and location). */
function parametersOf(doc, { item, operation }) {
  const parameters = new Map();
  for (const declared of [...(item.parameters ?? []), ...(operation.parameters ?? [])]) {
    const parameter = dereference(doc, declared).value;
    const name = parameter.in === "header" ? parameter.name.toLowerCase() : parameter.name;
    parameters.set(`${parameter.in} ${name}`, parameter);
  }
  return parameters;
}

/** How a value is written into the URL or header; a change makes the server read old requests differently. */
function serialization(parameter) {
  const style = parameter.style ?? (parameter.in === "query" || parameter.in === "cookie" ? "form" : "simple");
  return `${style}, explode ${parameter.explode ?? style === "form"}`;
}

function parameterSchema(parameter) {
  return parameter.schema ?? Object.values(parameter.content ?? {})[0]?.schema ?? {};
}

function compareParameters(run, { route, where, before, after }) {
  const { findings } = run;
  const beforeParameters = parametersOf(run.beforeDoc, before);
  const afterParameters = parametersOf(run.afterDoc, after);
  for (const [key, beforeParameter] of beforeParameters) {
    const afterParameter = afterParameters.get(key);
    const at = [...where, "parameters", beforeParameter.name];
    const label = `${beforeParameter.in} parameter \`${beforeParameter.name}\` of ${route}`;
    if (!afterParameter) {
      findings.breaks("parameter-removed", at, `The ${label} is gone.`);
      continue;
    }
    if (!beforeParameter.required && afterParameter.required) {
      findings.breaks("new-required-input", at, `The ${label} is now required.`);
    } else if (beforeParameter.required && !afterParameter.required) {
      findings.adds("widened-input", at, `The ${label} is now optional.`);
    }
    if (serialization(beforeParameter) !== serialization(afterParameter)) {
      findings.breaks("type-changed", at, `The ${label} is serialized as ${serialization(afterParameter)} instead of ${serialization(beforeParameter)}.`);
    }
    compareSchemas(run, parameterSchema(beforeParameter), parameterSchema(afterParameter), {
      side: "request",
      where: [...at, "schema"],
      subject: { name: beforeParameter.name, path: "", context: `${beforeParameter.in} parameter of ${route}` },
    });
  }
  for (const [key, afterParameter] of afterParameters) {
    if (beforeParameters.has(key)) continue;
    const at = [...where, "parameters", afterParameter.name];
    const label = `${afterParameter.in} parameter \`${afterParameter.name}\``;
    if (afterParameter.required) findings.breaks("new-required-input", at, `${route} requires a new ${label}.`);
    else findings.adds("parameter-added", at, `Added ${label} to ${route}.`);
  }
}

function compareRequestBodies(run, { route, where, before, after }) {
  const { findings } = run;
  const beforeBody = before.operation.requestBody && dereference(run.beforeDoc, before.operation.requestBody).value;
  const afterBody = after.operation.requestBody && dereference(run.afterDoc, after.operation.requestBody).value;
  const at = [...where, "requestBody"];
  if (!beforeBody && !afterBody) return;
  if (!afterBody) {
    findings.breaks("narrowed-input", at, `${route} no longer accepts a request body.`);
    return;
  }
  if (!beforeBody) {
    if (afterBody.required) findings.breaks("new-required-input", at, `${route} now requires a request body.`);
    else findings.adds("request-body-added", at, `${route} accepts an optional request body.`);
    return;
  }
  if (!beforeBody.required && afterBody.required) findings.breaks("new-required-input", at, `${route} now requires its request body.`);
  else if (beforeBody.required && !afterBody.required) findings.adds("widened-input", at, `The request body of ${route} is now optional.`);
  const beforeContent = beforeBody.content ?? {};
  const afterContent = afterBody.content ?? {};
  for (const [mediaType, beforeMedia] of Object.entries(beforeContent)) {
    const mediaAt = [...at, "content", mediaType];
    if (!afterContent[mediaType]) {
      findings.breaks("narrowed-input", mediaAt, `${route} no longer accepts ${mediaType} bodies.`);
      continue;
    }
    compareSchemas(run, beforeMedia.schema ?? {}, afterContent[mediaType].schema ?? {}, {
      side: "request",
      where: [...mediaAt, "schema"],
      subject: { name: "", path: "", context: `${mediaType} request body of ${route}` },
    });
  }
  for (const mediaType of Object.keys(afterContent).filter((mediaType) => !beforeContent[mediaType])) {
    findings.adds("request-body-added", [...at, "content", mediaType], `${route} also accepts ${mediaType} bodies.`);
  }
}

const isSuccess = (status) => /^2(\d\d|XX)$/i.test(status);

function compareResponses(run, { route, where, before, after }) {
  const { findings } = run;
  const beforeResponses = before.operation.responses ?? {};
  const afterResponses = after.operation.responses ?? {};
  const beforeSuccess = Object.keys(beforeResponses).filter(isSuccess);
  const afterSuccess = Object.keys(afterResponses).filter(isSuccess);
  const changed = beforeSuccess.find((status) => !afterSuccess.includes(status)) ?? afterSuccess.find((status) => !beforeSuccess.includes(status));
  if (changed) {
    findings.breaks(
      "status-changed",
      [...where, "responses", changed],
      `${route} answers ${afterSuccess.join(" or ") || "no success"} where it answered ${beforeSuccess.join(" or ")}.`,
    );
  }
  for (const [status, declared] of Object.entries(beforeResponses)) {
    const at = [...where, "responses", status];
    if (!afterResponses[status]) {
      if (!isSuccess(status)) findings.adds("error-answer-removed", at, `${route} no longer declares a ${status} answer.`);
      continue;
    }
    compareResponse(run, {
      success: isSuccess(status),
      at,
      label: `${status} answer of ${route}`,
      before: dereference(run.beforeDoc, declared).value,
      after: dereference(run.afterDoc, afterResponses[status]).value,
    });
  }
  for (const status of Object.keys(afterResponses).filter((status) => !beforeResponses[status] && !isSuccess(status))) {
    findings.adds("error-answer-added", [...where, "responses", status], `${route} may now answer ${status}.`);
  }
}

/** Error answers are compared for their schema (the Problem `code` enum); headers and media types only on success. */
function compareResponse(run, { success, at, label, before, after }) {
  const { findings } = run;
  const beforeContent = before.content ?? {};
  const afterContent = after.content ?? {};
  for (const [mediaType, beforeMedia] of Object.entries(beforeContent)) {
    const mediaAt = [...at, "content", mediaType];
    if (!afterContent[mediaType]) {
      if (success) findings.breaks("type-changed", mediaAt, `The ${label} is no longer ${mediaType}.`);
      continue;
    }
    compareSchemas(run, beforeMedia.schema ?? {}, afterContent[mediaType].schema ?? {}, {
      side: "response",
      where: [...mediaAt, "schema"],
      subject: { name: "", path: "", context: `${mediaType} ${label}` },
    });
  }
  if (!success) return;
  for (const mediaType of Object.keys(afterContent).filter((mediaType) => !beforeContent[mediaType])) {
    findings.adds("response-media-added", [...at, "content", mediaType], `The ${label} may also be ${mediaType}.`);
  }
  const beforeHeaders = headersOf(run.beforeDoc, before);
  const afterHeaders = headersOf(run.afterDoc, after);
  for (const [name, beforeHeader] of beforeHeaders) {
    const afterHeader = afterHeaders.get(name);
    const headerAt = [...at, "headers", beforeHeader.name];
    if (!afterHeader) {
      findings.breaks("response-field-removed", headerAt, `The ${label} no longer carries the header \`${beforeHeader.name}\`.`);
      continue;
    }
    compareSchemas(run, beforeHeader.schema ?? {}, afterHeader.schema ?? {}, {
      side: "response",
      where: [...headerAt, "schema"],
      subject: { name: beforeHeader.name, path: "", context: `header of the ${label}` },
    });
  }
  for (const [name, afterHeader] of afterHeaders) {
    if (!beforeHeaders.has(name))
      findings.adds("response-header-added", [...at, "headers", afterHeader.name], `Added header \`${afterHeader.name}\` to the ${label}.`);
  }
}

/** Header names are case-insensitive. */
function headersOf(doc, response) {
  return new Map(Object.entries(response.headers ?? {}).map(([name, header]) => [name.toLowerCase(), { name, ...dereference(doc, header).value }]));
}

function compareCatalogues(before, after, findings) {
  for (const [code, { status }] of Object.entries(before)) {
    if (!after[code]) findings.breaks("error-code-removed", [code], `The error code \`${code}\` (${status}) is gone.`);
    else if (after[code].status !== status)
      findings.breaks("error-status-changed", [code, "status"], `The error code \`${code}\` answers ${after[code].status} instead of ${status}.`);
  }
  for (const [code, { status, title }] of Object.entries(after)) {
    if (!before[code]) findings.adds("error-code-added", [code], `Added error code \`${code}\` (${status}: ${title}).`);
  }
}

// ---------------------------------------------------------------------------------------------
// Schemas. `side` is "request" (what a client sends: it breaks when the API accepts less) or
// "response" (what a client reads: it breaks when the API may answer something it did not before).

/** Whether a set of JSON Schema types admits `type` (every integer is a number). */
function covers(types, type) {
  return types.has(type) || (type === "integer" && types.has("number"));
}

/** The types a schema admits, or null for any; alternatives (anyOf/oneOf) contribute their union. */
function typesOf(doc, schema, visiting = new Set()) {
  const node = dereference(doc, schema).value;
  if (node === false) return new Set();
  if (node === true || node === undefined || visiting.has(node)) return null;
  if (node.type !== undefined) return new Set([node.type].flat());
  const alternatives = node.anyOf ?? node.oneOf;
  if (!alternatives) return null;
  visiting.add(node);
  const union = new Set();
  for (const alternative of alternatives) {
    const types = typesOf(doc, alternative, visiting);
    if (types === null) return null;
    for (const type of types) union.add(type);
  }
  return union;
}

function isNullOnly(doc, schema) {
  const type = dereference(doc, schema).value?.type;
  return type !== undefined && [type].flat().every((each) => each === "null");
}

/**
 * A schema as the walk sees it: nullability written as anyOf/oneOf [X, {type: null}] is unwrapped to
 * X (the null is in `types`), so `["string", "null"]` and `anyOf: [{type: string}, {type: null}]` compare alike.
 */
function view(doc, schema) {
  const types = typesOf(doc, schema);
  let { value: node, component } = dereference(doc, schema);
  if (node === true || node === undefined) node = {};
  if (node === false) node = { not: {} };
  const combinator = node.anyOf ? "anyOf" : node.oneOf ? "oneOf" : undefined;
  let alternatives = combinator && node[combinator].filter((alternative) => !isNullOnly(doc, alternative));
  if (alternatives?.length === 1 && node.type === undefined) {
    const inner = dereference(doc, alternatives[0]);
    node = inner.value === true ? {} : inner.value;
    component = inner.component ?? component;
    alternatives = undefined;
  }
  return { types, node, component, combinator: alternatives ? combinator : undefined, alternatives };
}

function describeTypes(types) {
  return types === null ? "any type" : types.size === 0 ? "nothing" : [...types].join(" or ");
}

/** A subject is what a message names: `name` + `path` (e.g. `Operation` + `.lines[]`), and where it sits. */
function describe({ name, path, context }) {
  const inner = `${name}${path}`.replace(/^\./, "");
  if (!inner) return `the ${context}`;
  return context ? `\`${inner}\` (${context})` : `\`${inner}\``;
}

function below(scope, segments, path) {
  return { ...scope, where: [...scope.where, ...segments], subject: { ...scope.subject, path: scope.subject.path + path } };
}

function compareSchemas(run, beforeSchema, afterSchema, scope) {
  const before = view(run.beforeDoc, beforeSchema);
  const after = view(run.afterDoc, afterSchema);
  if (compareTypes(run, before.types, after.types, scope) === "unrelated") return;
  // A change inside a named component is reported once, where it is defined, not at every use.
  const here = after.component
    ? { ...scope, where: ["components", "schemas", after.component], subject: { name: after.component, path: "", context: undefined } }
    : scope;
  // Each pair of schemas is walked once per side: that also ends the walk around a recursive schema.
  let walked = run.walked.get(before.node);
  if (!walked) {
    walked = new Map();
    run.walked.set(before.node, walked);
  }
  const sides = walked.get(after.node) ?? new Set();
  if (sides.has(scope.side)) return;
  walked.set(after.node, sides.add(scope.side));
  if (before.alternatives || after.alternatives) {
    compareAlternatives(run, before, after, here);
    // A plain schema facing alternatives was compared as one of them.
    if (!before.alternatives || !after.alternatives) return;
  }
  compareEnums(run, before.node, after.node, here);
  if (scope.side === "request") compareLimits(run, before.node, after.node, here);
  compareProperties(run, before.node, after.node, here);
  compareAllOf(run, before.node, after.node, here);
  if (before.node.items !== undefined || after.node.items !== undefined) {
    compareSchemas(run, before.node.items ?? {}, after.node.items ?? {}, below(here, ["items"], "[]"));
  }
  if (before.node.propertyNames !== undefined || after.node.propertyNames !== undefined) {
    compareSchemas(run, before.node.propertyNames ?? {}, after.node.propertyNames ?? {}, below(here, ["propertyNames"], " (keys)"));
  }
  compareAdditionalProperties(run, before.node, after.node, here);
}

const isNumeric = (type) => type === "integer" || type === "number";

/** Whether two type lists share a value (an integer is a number). */
function overlap(types, others) {
  return types.some((type) => others.some((other) => other === type || (isNumeric(type) && isNumeric(other))));
}

/** "unrelated" when the types share nothing (string → object): nothing below is worth comparing then. */
function compareTypes({ findings }, before, after, scope) {
  const what = describe(scope.subject);
  const nonNull = (types) => (types ? [...types].filter((type) => type !== "null") : []);
  const [beforeCore, afterCore] = [nonNull(before), nonNull(after)];
  if (beforeCore.length && afterCore.length && !overlap(beforeCore, afterCore)) {
    findings.breaks("type-changed", scope.where, `${what} is ${describeTypes(after)} instead of ${describeTypes(before)}.`);
    return "unrelated";
  }
  const lost = after === null ? [] : before === null ? ["any other type"] : [...before].filter((type) => !covers(after, type));
  const gained = before === null ? [] : after === null ? ["any type"] : [...after].filter((type) => !covers(before, type));
  if (lost.length) reportAdmitted(findings, scope, scope.where, "less", `${what} may no longer be ${lost.join(" or ")} (now ${describeTypes(after)}).`);
  if (gained.length) reportAdmitted(findings, scope, scope.where, "more", `${what} may now be ${gained.join(" or ")} (was ${describeTypes(before)}).`);
  return "related";
}

/**
 * A schema that admits more values widens a request (compatible) but lets an answer hold what a
 * client never saw (breaking); one that admits less breaks a request and only narrows an answer.
 */
function reportAdmitted(findings, scope, where, admitted, message) {
  if (scope.side === "request") {
    if (admitted === "more") findings.adds("widened-input", where, message);
    else findings.breaks("narrowed-input", where, message);
  } else if (admitted === "more") findings.breaks("type-changed", where, message);
  else findings.adds("narrowed-output", where, message);
}

/**
 * Subschemas by position. One more alternative (anyOf/oneOf) admits more values; one more allOf part
 * admits less. A plain schema facing alternatives counts as the only one.
 */
function compareAlternatives(run, before, after, scope) {
  compareByPosition(run, scope, {
    before: { list: before.alternatives ?? [before.node], keyword: before.combinator },
    after: { list: after.alternatives ?? [after.node], keyword: after.combinator },
    added: "more",
    describeEntry: (index) => `alternative ${index + 1}`,
  });
}

function compareAllOf(run, before, after, scope) {
  if (!before.allOf && !after.allOf) return;
  compareByPosition(run, scope, {
    before: { list: before.allOf ?? [], keyword: "allOf" },
    after: { list: after.allOf ?? [], keyword: "allOf" },
    added: "less",
    describeEntry: (index) => `allOf part ${index + 1}`,
  });
}

function compareByPosition(run, scope, { before, after, added, describeEntry }) {
  const at = (side, index) => (side.keyword ? [...scope.where, side.keyword, index] : scope.where);
  for (let index = 0; index < Math.min(before.list.length, after.list.length); index++) {
    compareSchemas(run, before.list[index], after.list[index], { ...scope, where: at(after, index) });
  }
  const what = describe(scope.subject);
  const removed = added === "more" ? "less" : "more";
  for (let index = after.list.length; index < before.list.length; index++) {
    reportAdmitted(run.findings, scope, at(before, index), removed, `${what} lost its ${describeEntry(index)}.`);
  }
  for (let index = before.list.length; index < after.list.length; index++) {
    reportAdmitted(run.findings, scope, at(after, index), added, `${what} has a new ${describeEntry(index)}.`);
  }
}

/** A `const` is an enum of one value. */
function enumOf(node) {
  if (Array.isArray(node.enum)) return node.enum;
  return "const" in node ? [node.const] : undefined;
}

function compareEnums({ findings }, before, after, scope) {
  const beforeValues = enumOf(before);
  const afterValues = enumOf(after);
  if (!beforeValues && !afterValues) return;
  const what = describe(scope.subject);
  if (!afterValues) {
    if (scope.side === "request") findings.adds("widened-input", scope.where, `${what} accepts any value, not only ${beforeValues.map(show).join(", ")}.`);
    else findings.adds("widened-output", scope.where, `${what} is no longer limited to ${beforeValues.map(show).join(", ")}.`);
    return;
  }
  if (!beforeValues) {
    if (scope.side === "request") findings.breaks("narrowed-input", scope.where, `${what} now accepts only ${afterValues.map(show).join(", ")}.`);
    else findings.adds("narrowed-output", scope.where, `${what} is one of ${afterValues.map(show).join(", ")}.`);
    return;
  }
  const [beforeKeys, afterKeys] = [new Set(beforeValues.map(show)), new Set(afterValues.map(show))];
  for (const value of beforeKeys) {
    if (!afterKeys.has(value)) findings.breaks("enum-value-removed", scope.where, `${what} lost the value ${value}.`);
  }
  for (const value of afterKeys) {
    if (!beforeKeys.has(value)) findings.adds("enum-value-added", scope.where, `Added value ${value} to ${what}.`);
  }
}

function show(value) {
  return JSON.stringify(value);
}

/** Request-side limits: a limit that admits fewer values breaks a client that sent one of them. */
const LIMITS = [
  { keyword: "maxLength", narrows: (before, after) => after < before },
  { keyword: "maximum", narrows: (before, after) => after < before },
  { keyword: "exclusiveMaximum", narrows: (before, after) => after < before },
  { keyword: "maxItems", narrows: (before, after) => after < before },
  { keyword: "maxProperties", narrows: (before, after) => after < before },
  { keyword: "minLength", narrows: (before, after) => after > before },
  { keyword: "minimum", narrows: (before, after) => after > before },
  { keyword: "exclusiveMinimum", narrows: (before, after) => after > before },
  { keyword: "minItems", narrows: (before, after) => after > before },
  { keyword: "minProperties", narrows: (before, after) => after > before },
  { keyword: "uniqueItems", narrows: (before, after) => after && !before },
  // Any other pattern, format or multipleOf may refuse a value the old one accepted.
  { keyword: "pattern", narrows: () => true },
  { keyword: "format", narrows: () => true },
  { keyword: "multipleOf", narrows: (before, after) => before % after !== 0 },
];

function compareLimits({ findings }, before, after, scope) {
  const what = describe(scope.subject);
  for (const { keyword, narrows } of LIMITS) {
    const [was, is] = [before[keyword], after[keyword]];
    if (show(was) === show(is)) continue;
    const change = `${keyword} ${was === undefined ? "(none)" : show(was)} → ${is === undefined ? "(none)" : show(is)}`;
    const admitted = is !== undefined && (was === undefined || narrows(was, is)) ? "less" : "more";
    reportAdmitted(findings, scope, [...scope.where, keyword], admitted, `${what} accepts ${admitted}: ${change}.`);
  }
}

function compareProperties(run, before, after, scope) {
  const { findings } = run;
  const beforeProperties = before.properties ?? {};
  const afterProperties = after.properties ?? {};
  const beforeRequired = new Set(before.required ?? []);
  const afterRequired = new Set(after.required ?? []);
  const request = scope.side === "request";
  for (const [name, beforeProperty] of Object.entries(beforeProperties)) {
    const property = below(scope, ["properties", name], `.${name}`);
    const what = describe(property.subject);
    if (!(name in afterProperties)) {
      if (request) findings.breaks("request-field-removed", property.where, `The request field ${what} is gone: a client still sending it is refused.`);
      else findings.breaks("response-field-removed", property.where, `The response field ${what} is gone.`);
      continue;
    }
    const [wasRequired, isRequired] = [beforeRequired.has(name), afterRequired.has(name)];
    if (request && !wasRequired && isRequired) findings.breaks("new-required-input", property.where, `The request field ${what} is now required.`);
    if (request && wasRequired && !isRequired) findings.adds("widened-input", property.where, `The request field ${what} is now optional.`);
    if (!request && wasRequired && !isRequired) findings.breaks("type-changed", property.where, `The response field ${what} may now be absent.`);
    if (!request && !wasRequired && isRequired) findings.adds("narrowed-output", property.where, `The response field ${what} is now always present.`);
    compareSchemas(run, beforeProperty, afterProperties[name], property);
  }
  for (const name of Object.keys(afterProperties).filter((name) => !(name in beforeProperties))) {
    const property = below(scope, ["properties", name], `.${name}`);
    const what = describe(property.subject);
    if (!request) findings.adds("response-field-added", property.where, `Added response field ${what}.`);
    else if (afterRequired.has(name)) findings.breaks("new-required-input", property.where, `The request field ${what} is new and required.`);
    else findings.adds("request-field-added", property.where, `Added optional request field ${what}.`);
  }
}

/** Absent or true admits any other key; false admits none. An answer may gain keys: clients ignore unknown fields. */
function compareAdditionalProperties(run, before, after, scope) {
  const [was, is] = [before.additionalProperties ?? true, after.additionalProperties ?? true];
  if (was === is) return;
  const values = below(scope, ["additionalProperties"], ".*");
  const what = describe(scope.subject);
  if (was !== false && is !== false) {
    compareSchemas(run, was === true ? {} : was, is === true ? {} : is, values);
  } else if (is === false) {
    if (scope.side === "request") run.findings.breaks("narrowed-input", values.where, `${what} no longer accepts other keys.`);
    else run.findings.adds("narrowed-output", values.where, `${what} holds no other keys.`);
  } else {
    if (scope.side === "request") run.findings.adds("widened-input", values.where, `${what} accepts other keys.`);
    else run.findings.adds("widened-output", values.where, `${what} may hold other keys.`);
  }
}
