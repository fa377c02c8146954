// `npm run key` takes a user id as the API takes one (src/platform/core/identifier-text.mjs): refused
// with a control or format character, kept in NFC so the key matches the directory's user.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { validateKeyRequest } from "../../scripts/lib/keys.mjs";

const request = (user) => ({ tenant: "t-1", role: "ACCOUNT", user });

describe("npm run key --user", () => {
  for (const user of ["u\u0000", "u\r\n1", "u\u200b1", "u\u202e1", "\ufeffu", "u\ud800"]) {
    it(`refuses ${JSON.stringify(user)}, naming the option and the character`, () => {
      assert.throws(
        () => validateKeyRequest(request(user)),
        /^Error: --user contains U\+[0-9A-F]{4} \((a control character|a format character|a lone surrogate)\)/,
      );
    });
  }

  it("takes either spelling of an accented id, and stores its NFC spelling", () => {
    for (const user of ["Jose\u0301", "Jos\u00e9"]) assert.equal(validateKeyRequest(request(user)).userId, "Jos\u00e9");
    assert.equal(validateKeyRequest({ tenant: "t-1", role: "OPERATOR" }).userId, null);
  });

  it("takes a user for an OPERATOR key too: the person the key belongs to", () => {
    assert.equal(validateKeyRequest({ tenant: "t-1", role: "OPERATOR", user: "Jose\u0301" }).userId, "Jos\u00e9");
    assert.throws(() => validateKeyRequest({ tenant: "t-1", role: "OPERATOR", user: "u\u0000" }), /^Error: --user contains U\+0000/);
  });
});
