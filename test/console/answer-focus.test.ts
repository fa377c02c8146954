import { describe, expect, it } from "vitest";
import { answerFocus } from "../../console/src/operations/live/answerFocus";

describe("the focus once a conflict is answered from the keyboard", () => {
  const page = { isConnected: true };
  const button = { isConnected: true };
  const list = { contains: (node: never) => node === (button as never) };

  it("is lost on the page, and on the answered button once it is removed, even while the browser still names it focused", () => {
    expect(answerFocus(page, page, list)).toBe("lost");
    expect(answerFocus(null, page, list)).toBe("lost");
    expect(answerFocus({ isConnected: false }, page, list)).toBe("lost");
    expect(answerFocus({ isConnected: false }, page, null)).toBe("lost");
  });

  it("waits while it is still on a button of the list, and is left alone where the person moved it", () => {
    expect(answerFocus(button, page, list)).toBe("waiting");
    expect(answerFocus({ isConnected: true }, page, list)).toBe("elsewhere");
    expect(answerFocus(button, page, null)).toBe("elsewhere");
  });
});
