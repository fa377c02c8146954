// The guides' copies and the reference viewer under public/docs/ (what the /docs page lists and
// serves): a running local server reloads when a file under public/ changes, so writing them again
// (every `npm start` does) changes only what differs.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { writeGuideList } from "../../scripts/lib/guides.mjs";
import { repoRoot } from "../../scripts/lib/wrangler.mjs";

describe("the guides' copies under public/docs/", () => {
  const root = mkdtempSync(join(tmpdir(), "guides-"));
  after(() => rmSync(root, { recursive: true, force: true }));
  const copy = (name) => join(root, "public", "docs", "guides", name);
  const list = join(root, "public", "docs", "guides.json");
  const longAgo = new Date("2020-01-01T00:00:00Z");
  const writtenSince = (path) => statSync(path).mtimeMs > longAgo.getTime();

  it("are written once, then only where a guide changed, and removed with their guide", () => {
    mkdirSync(join(root, "docs"));
    writeFileSync(join(root, "docs", "alpha.md"), "# Alpha\n");
    writeFileSync(join(root, "docs", "beta.md"), "# Beta\n");
    writeGuideList(root);
    assert.equal(readFileSync(copy("alpha.md"), "utf8"), "# Alpha\n");
    assert.deepEqual(
      JSON.parse(readFileSync(list, "utf8")).map((guide) => guide.title),
      ["Alpha", "Beta"],
    );

    for (const path of [copy("alpha.md"), copy("beta.md"), list]) utimesSync(path, longAgo, longAgo);
    writeGuideList(root);
    assert.deepEqual([copy("alpha.md"), copy("beta.md"), list].filter(writtenSince), [], "nothing changed, nothing written");

    writeFileSync(join(root, "docs", "alpha.md"), "# Alpha, again\n");
    rmSync(join(root, "docs", "beta.md"));
    writeGuideList(root);
    assert.equal(readFileSync(copy("alpha.md"), "utf8"), "# Alpha, again\n");
    assert.throws(() => statSync(copy("beta.md")), { code: "ENOENT" });
    assert.deepEqual(
      JSON.parse(readFileSync(list, "utf8")).map((guide) => guide.title),
      ["Alpha, again"],
    );
  });

  it("npm start's preparation writes nothing under public/docs/ when nothing changed", () => {
    // Once to bring them up to date (a guide may have been edited since npm test wrote them), then again.
    const prepare = () => execFileSync(process.execPath, [join(repoRoot, "scripts", "prepare-docs.mjs")]);
    prepare();
    const docs = join(repoRoot, "public", "docs");
    const files = [
      join(docs, "guides.json"),
      ...["vendor", "guides"].flatMap((folder) => readdirSync(join(docs, folder)).map((name) => join(docs, folder, name))),
    ];
    const before = files.map((path) => statSync(path).mtimeMs);
    prepare();
    assert.deepEqual(
      files.filter((path, i) => statSync(path).mtimeMs !== before[i]),
      [],
    );
  });
});
