import { EVENT_TYPES } from "../common/event-types";

/**
 * A subscription names event types exactly ("order.created") or by a prefix ending in * ("operation.*",
 * or "*" for every type). A pattern that matches no event type is refused, so a typo is an error.
 */
export function isEventTypePattern(pattern: string): boolean {
  if (!pattern.endsWith("*")) return (EVENT_TYPES as readonly string[]).includes(pattern);
  const prefix = pattern.slice(0, -1);
  return !prefix.includes("*") && EVENT_TYPES.some((type) => type.startsWith(prefix));
}

export function matchesEventType(patterns: readonly string[], type: string): boolean {
  return patterns.some((pattern) => (pattern.endsWith("*") ? type.startsWith(pattern.slice(0, -1)) : pattern === type));
}
