import type { CSSProperties } from "react";
import type { LiveViewer } from "./liveClient";

/** A color per person here (by connection), the same in `Here now` and on the cell they are on; white letters read on each. */
const COLORS = ["#1f5fd1", "#8a3ffc", "#b3261e", "#17663a", "#9a3412", "#0e7490"];

export function hereColor(viewerId: string): string {
  let hash = 0;
  for (const char of viewerId) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return COLORS[hash % COLORS.length];
}

/** A person's initial in their color. */
export function HereDot({ viewer }: { viewer: LiveViewer }) {
  return (
    <span className="here-dot" style={{ "--here": hereColor(viewer.id) } as CSSProperties} aria-hidden="true">
      {viewer.name.trim().charAt(0).toUpperCase() || "?"}
    </span>
  );
}

/** On a cell: who else is on it (their initials; their names to a screen reader and on hover). */
export function HereMark({ viewers }: { viewers: readonly LiveViewer[] }) {
  const names = viewers.map((viewer) => viewer.name).join(", ");
  return (
    <span className="here-mark" style={{ "--here": hereColor(viewers[0].id) } as CSSProperties} title={`${names}: here`}>
      {viewers.map((viewer) => (
        <HereDot key={viewer.id} viewer={viewer} />
      ))}
      <span className="sr-only"> ({names} here)</span>
    </span>
  );
}
