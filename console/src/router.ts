import { useSyncExternalStore } from "react";

// The console's pages are paths under /console; the Worker answers any of them with the console.
const listeners = new Set<() => void>();
const notify = () => listeners.forEach((listener) => listener());
window.addEventListener("popstate", notify);

export function navigate(path: string) {
  history.pushState(null, "", path);
  notify();
}

export function usePath(): string {
  return useSyncExternalStore(
    (listener) => (listeners.add(listener), () => listeners.delete(listener)),
    () => location.pathname,
  );
}
