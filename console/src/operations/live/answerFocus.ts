/**
 * Where the focus stands once a conflict was answered from the keyboard: still in the list (its answer
 * not in yet: wait), moved elsewhere by the person (leave it), or lost: on the page, or on the removed
 * button, which a browser may still name as focused until its next rendering (the focus fixup) while
 * React runs a keyboard event's effects before that.
 */
export function answerFocus(
  focused: { isConnected: boolean } | null,
  page: unknown,
  list: { contains(node: never): boolean } | null,
): "waiting" | "elsewhere" | "lost" {
  if (!focused || focused === page || !focused.isConnected) return "lost";
  return list?.contains(focused as never) ? "waiting" : "elsewhere";
}
