import { useRef } from "react";
import { useLocation, useSearch } from "wouter";

/**
 * A view's filters and sort, kept in the address's query: Back and Forward go from view to view, a
 * link reproduces one, a reload keeps it. A value equal to its default is left out of the address.
 * A change made while typing (`typing`) replaces the entry the first keystroke of the burst pushed,
 * so Back goes to the view before the typing rather than through every letter.
 */
export function useViewParams<T extends Record<string, string>>(defaults: T): [T, (changes: Partial<T>, options?: { typing?: boolean }) => void] {
  const search = useSearch();
  const [path, navigate] = useLocation();
  const lastTyped = useRef(0);
  const params = new URLSearchParams(search);
  const values = Object.fromEntries(Object.entries(defaults).map(([name, fallback]) => [name, params.get(name) ?? fallback])) as T;
  const set = (changes: Partial<T>, { typing = false } = {}) => {
    const next = new URLSearchParams(search);
    for (const [name, value] of Object.entries(changes)) {
      if (value === undefined || value === defaults[name]) next.delete(name);
      else next.set(name, value as string);
    }
    const now = Date.now();
    const replace = typing && now - lastTyped.current < 1000;
    lastTyped.current = typing ? now : 0;
    const query = next.toString();
    navigate(`${path}${query ? `?${query}` : ""}`, { replace });
  };
  return [values, set];
}
