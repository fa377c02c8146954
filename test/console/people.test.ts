import { describe, expect, it } from "vitest";
import { fieldValueText, usersNamedIn } from "../../console/src/labels/values";
import { accountName, actorName, keyName, needsEmail, userName, userOfActor, type KnownKey, type People } from "../../console/src/labels/people";

const key = (id: string, fields: Partial<KnownKey> = {}): KnownKey => ({
  id,
  name: null,
  userId: null,
  role: "OPERATOR",
  createdAt: "2026-11-20T10:00:00Z",
  ...fields,
});
const keys = new Map(
  [
    key("key_demo", { name: "Demo operator" }),
    key("key_alice_new", { name: "Alice laptop", userId: "u_alice", role: "ACCOUNT", createdAt: "2026-11-25T00:00:00Z" }),
    key("key_alice", { name: "Alice (Maison Dupont)", userId: "u_alice", role: "ACCOUNT" }),
    key("key_bob", { userId: "u_bob", role: "ACCOUNT" }),
    key("key_bare"),
  ].map((k) => [k.id, k]),
);
const people: People = { keys, emails: new Map([["u_bob", "bob@dupont.example"]]) };

describe("people by their names", () => {
  it("names a key's actor by the key's name, never its first characters or id", () => {
    expect(actorName("key:key_demo", people)).toBe("Demo operator");
    expect(actorName("key:key_bob", people)).toBe("bob@dupont.example");
    expect(actorName("key:key_bare", people)).toBe("an unnamed OPERATOR key of 2026-11-20");
    expect(actorName("key:key_gone", people)).toBe("a key no longer listed");
    expect(actorName("key:key_demo", {})).toBe("…");
  });

  it("names a user by a key of theirs (the oldest named), else their email, else their id", () => {
    expect(actorName("user:u_alice", people)).toBe("Alice (Maison Dupont)");
    expect(actorName("user:u_bob", people)).toBe("bob@dupont.example");
    expect(actorName("user:u_zoe", people)).toBe("u_zoe");
    expect(userName("u_alice", people)).toBe("Alice (Maison Dupont)");
  });

  it("prefers the record's own key when it names one (actorKeyId)", () => {
    expect(actorName("user:u_alice", people, "key_alice_new")).toBe("Alice laptop");
    expect(actorName("user:u_alice", people, "key_unknown")).toBe("Alice (Maison Dupont)");
  });

  it("names the schedule and the command line in words", () => {
    expect(actorName("schedule", people)).toBe("the schedule");
    expect(actorName("cli", people)).toBe("the command line");
  });

  it("knows whose email naming needs: a user no key of theirs names", () => {
    expect(needsEmail("u_bob", people)).toBe(true);
    expect(needsEmail("u_alice", people)).toBe(false);
    expect(needsEmail("u_bob", {})).toBe(false);
    expect(userOfActor("user:u_bob", people)).toBe("u_bob");
    expect(userOfActor("key:key_bob", people)).toBe("u_bob");
    expect(userOfActor("key:key_demo", people)).toBeUndefined();
    expect(keyName(keys.get("key_alice")!, people)).toBe("Alice (Maison Dupont)");
  });

  it("names an account by its name and id, its id alone until its name is known", () => {
    const names = new Map([
      ["A-100", "Maison Dupont"],
      ["A-999", null],
    ]);
    expect(accountName("A-100", names)).toBe("Maison Dupont, A-100");
    expect(accountName("A-999", names)).toBe("A-999");
    expect(accountName("A-100", undefined)).toBe("A-100");
  });

  it("writes owners, approvers, accounts and amounts by what they are", () => {
    const names = {
      money: (amount: number) => `€${(amount / 100).toFixed(2)}`,
      people: {
        keys: new Map([["key_a", { id: "key_a", name: "Alice", userId: "u_alice", role: "ACCOUNT", createdAt: "2026-01-01" }]]),
        emails: new Map([["u_bob", "bob@x.example"]]),
      },
      accounts: new Map([["A-100", "Maison Dupont"]]),
    };
    expect(fieldValueText("ownerIds", ["u_alice", "u_bob", "u_zed"], names)).toBe("Alice, bob@x.example, u_zed");
    expect(fieldValueText("approver", "key:key_a", names)).toBe("Alice");
    expect(fieldValueText("accountId", "A-100", names)).toBe("Maison Dupont, A-100");
    expect(fieldValueText("minimum", 18050, names)).toBe("€180.50");
    expect(fieldValueText("ownerIds", [], names)).toBe("—");
    expect(
      usersNamedIn([
        { field: "ownerIds", previous: ["u_a"], next: ["u_b"] },
        { field: "approver", next: "user:u_c" },
      ]),
    ).toEqual(["u_a", "u_b", "u_c"]);
  });
});
