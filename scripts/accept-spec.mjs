// npm run spec:accept   (runs `npm run spec` first)
//   Accepts the current /v1 contract (client/openapi.json, client/error-catalogue.json) as the new
//   snapshot in spec/, and records each change against the previous snapshot under "Unreleased" in
//   CHANGELOG.md. A breaking change is never accepted: it is printed and nothing is written.
//   Accepting an unchanged contract writes nothing new.
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { compareContracts, CONTRACT_FILES, formatFinding, HTTP_METHODS, readContract } from "./lib/compatibility.mjs";
import { repoRoot } from "./lib/wrangler.mjs";

const changelogPath = join(repoRoot, "CHANGELOG.md");
const UNRELEASED = "## Unreleased";
const CHANGELOG_HEADER = `# Changelog

Every accepted change to the /v1 contract (the OpenAPI document \`client/openapi.json\` and the error
catalogue \`client/error-catalogue.json\`), newest first. \`npm run spec:accept\` writes these lines from
the compatibility gate's findings; docs/versioning.md says what may change
inside /v1. A release renames "Unreleased" to its date.
`;

const current = readContract(repoRoot, CONTRACT_FILES.current);
const hasSnapshot = Object.values(CONTRACT_FILES.accepted).every((file) => existsSync(join(repoRoot, file)));

let lines;
if (hasSnapshot) {
  const { breaking, additive } = compareContracts({ before: readContract(repoRoot, CONTRACT_FILES.accepted), after: current });
  if (breaking.length > 0) {
    console.error(`Not accepted: ${breaking.length} breaking change(s) to /v1 (a breaking change needs /v2; see docs/versioning.md):`);
    for (const finding of breaking) console.error(`  ${formatFinding(finding)}`);
    process.exit(1);
  }
  lines = additive.map((finding) => `- ${finding.message}`);
} else {
  lines = [
    `- Recorded the /v1 contract baseline on ${new Date().toISOString().slice(0, 10)}: ${describeContract(current)}; later entries list each change against it.`,
  ];
}

for (const kind of Object.keys(CONTRACT_FILES.current)) {
  const target = join(repoRoot, CONTRACT_FILES.accepted[kind]);
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(join(repoRoot, CONTRACT_FILES.current[kind]), target);
}
const recorded = recordUnreleased(lines);
const accepted = `Accepted the contract into ${Object.values(CONTRACT_FILES.accepted).join(" and ")}`;
if (recorded.length === 0) console.error(`${accepted}; no change to record in CHANGELOG.md.`);
else console.error([`${accepted}; recorded in CHANGELOG.md:`, ...recorded.map((line) => `  ${line}`)].join("\n"));

function describeContract({ openapi, errors }) {
  const paths = Object.values(openapi.paths ?? {});
  const operations = paths.flatMap((item) => HTTP_METHODS.filter((method) => item[method])).length;
  return `${operations} operations on ${paths.length} paths, ${Object.keys(errors).length} error codes`;
}

/** Puts the lines not already there at the top of the Unreleased section (newest first); returns them. */
function recordUnreleased(lines) {
  let text = existsSync(changelogPath) ? readFileSync(changelogPath, "utf8") : CHANGELOG_HEADER;
  if (!text.split("\n").includes(UNRELEASED)) {
    const firstSection = text.search(/^## /m);
    text = firstSection === -1 ? `${text.trimEnd()}\n\n${UNRELEASED}\n` : `${text.slice(0, firstSection)}${UNRELEASED}\n\n${text.slice(firstSection)}`;
  }
  const start = text.indexOf(`${UNRELEASED}\n`) + UNRELEASED.length + 1;
  const nextSection = text.slice(start).search(/^## /m);
  const end = nextSection === -1 ? text.length : start + nextSection;
  const existing = text
    .slice(start, end)
    .split("\n")
    .filter((line) => line.trim() !== "");
  const fresh = [...new Set(lines)].filter((line) => !existing.includes(line));
  if (fresh.length === 0) return [];
  const body = [...fresh, ...existing].join("\n");
  const rest = text.slice(end);
  writeFileSync(changelogPath, `${text.slice(0, start)}\n${body}\n${rest ? `\n${rest}` : ""}`);
  return fresh;
}
