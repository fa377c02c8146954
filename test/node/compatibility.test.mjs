// The compatibility gate of /v1: the contract as built now (client/openapi.json and
// client/error-catalogue.json, written by `npm run spec`) against the one last accepted (spec/).
// A breaking difference fails for good: it needs /v2 (docs/versioning.md).
// Any other difference fails until `npm run spec:accept` records it in spec/ and CHANGELOG.md.
// The fixtures hold the comparison itself to each class of change.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { BREAKING_CLASSES, compareContracts, CONTRACT_FILES, formatFinding, readContract } from "../../scripts/lib/compatibility.mjs";
import { repoRoot } from "../../scripts/lib/wrangler.mjs";

const fixturesDir = join(repoRoot, "test", "node", "fixtures", "compatibility");

describe("the /v1 contract against its accepted snapshot", () => {
  const snapshotMissing = Object.values(CONTRACT_FILES.accepted).filter((file) => !existsSync(join(repoRoot, file)));
  const { breaking, additive } = snapshotMissing.length
    ? { breaking: [], additive: [] }
    : compareContracts({ before: readContract(repoRoot, CONTRACT_FILES.accepted), after: readContract(repoRoot, CONTRACT_FILES.current) });

  it("has a snapshot", () => {
    assert.deepEqual(snapshotMissing, [], "No accepted contract: run `npm run spec:accept` and commit spec/ and CHANGELOG.md");
  });

  it("breaks nothing a /v1 client relies on", () => {
    if (breaking.length === 0) return;
    assert.fail(
      [`${breaking.length} breaking change(s) to /v1 (a breaking change needs /v2; see docs/versioning.md):`, ...breaking.map(formatFinding)].join("\n"),
    );
  });

  it("has every other change accepted into spec/ and CHANGELOG.md", () => {
    if (additive.length === 0) return;
    assert.fail(
      [
        `${additive.length} change(s) to the contract not accepted yet: run \`npm run spec:accept\` and commit spec/ and CHANGELOG.md.`,
        ...additive.map(formatFinding),
      ].join("\n"),
    );
  });
});

/**
 * Each fixture: { description, expect: { breaking: [{ class, pointer }], additive: [...] }, before, after },
 * where before and after are { openapi, errors }.
 */
const fixtures = readdirSync(fixturesDir)
  .filter((file) => file.endsWith(".json"))
  .sort()
  .map((file) => ({ file, ...JSON.parse(readFileSync(join(fixturesDir, file), "utf8")) }));

const classAndPointer = (findings) =>
  findings.map((finding) => ({ class: finding.class, pointer: finding.pointer })).sort((a, b) => formatFinding(a).localeCompare(formatFinding(b)));

describe("compatibility fixtures", () => {
  for (const { file, description, expect, before, after } of fixtures) {
    it(`${file}: ${description}`, () => {
      const result = compareContracts({ before, after });
      assert.deepEqual(
        classAndPointer(result.breaking),
        classAndPointer(expect.breaking),
        `breaking findings:\n${result.breaking.map(formatFinding).join("\n")}`,
      );
      assert.deepEqual(
        classAndPointer(result.additive),
        classAndPointer(expect.additive),
        `additive findings:\n${result.additive.map(formatFinding).join("\n")}`,
      );
      for (const finding of [...result.breaking, ...result.additive]) assert.match(finding.message, /\S/);
    });
  }

  it("cover every breaking class, each alone in one fixture at least", () => {
    const alone = new Set(
      fixtures.filter(({ expect }) => new Set(expect.breaking.map((finding) => finding.class)).size === 1).map(({ expect }) => expect.breaking[0].class),
    );
    assert.deepEqual(
      BREAKING_CLASSES.filter((kind) => !alone.has(kind)),
      [],
    );
  });

  it("include changes that break nothing", () => {
    assert.ok(fixtures.filter(({ expect }) => expect.breaking.length === 0).length >= 8);
  });

  it("compare the current contract with itself as unchanged", () => {
    const current = readContract(repoRoot, CONTRACT_FILES.current);
    assert.deepEqual(compareContracts({ before: current, after: structuredClone(current) }), { breaking: [], additive: [] });
  });
});
