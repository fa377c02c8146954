import { describe, expect, it } from "vitest";
import { canDecide, countsText, decisionNote, standingText } from "../../console/src/operations/approvalWords";

const settings = { required: 1, allowSelfApproval: false };
const author = "key:key_alice";
const approve = (approver: string, valid = true, version = 2) => ({ decision: "APPROVE" as const, approver, valid, version });

describe("approvals in words", () => {
  it("says what Activate needs, the author's own approval not counting", () => {
    const facts = { settings, author, status: "DRAFT", version: 2 };
    expect(standingText({ ...facts, decisions: [approve(author)] })).toBe(
      "Activate needs 1 more approval from someone other than the version's author (0 of 1 on version 2); any change voids them.",
    );
    expect(standingText({ ...facts, decisions: [approve("key:key_bob")] })).toBe("Version 2 has 1 of 1 approval needed: it can be activated.");
    expect(countsText(approve(author), settings, author)).toBe("No: by the version's author");
    expect(countsText(approve("key:key_bob", false, 1), settings, author)).toBe("No: made on version 1, changed since");
  });

  it("once ACTIVE, asks for nothing and offers no decision", () => {
    const facts = { settings, author, status: "ACTIVE", version: 3, decisions: [approve("key:key_bob", false)] };
    expect(standingText(facts)).toMatch(/^This Operation is ACTIVE: there is nothing to approve now\./);
    expect(canDecide(facts)).toBe(false);
    expect(canDecide({ status: "DRAFT" })).toBe(true);
  });

  it("tells the author their own approval does not count", () => {
    expect(decisionNote(approve(author), settings, author)).toBe(
      "Your approval of version 2 is recorded but does not count: you made this version, and activating it needs someone else's approval.",
    );
    expect(decisionNote(approve("key:key_bob"), settings, author)).toBe("Approved version 2: your approval counts.");
    expect(decisionNote(approve(author), { ...settings, allowSelfApproval: true }, author)).toBe("Approved version 2: your approval counts.");
  });
});
