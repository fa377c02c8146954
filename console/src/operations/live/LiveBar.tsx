import { useEffect, useState } from "react";
import type { Operation } from "../../api/operations";
import { fieldLabel } from "../../labels/fields";
import type { LiveEnd, LiveState, LiveViewer } from "./liveClient";
import { HereDot } from "./HereMark";
import { useLiveOperation } from "./useLiveOperation";

/**
 * Under an Operation's title, on each of its views: whether the page is live (said politely to a
 * screen reader when it changes), and `Here now`, who else has the Operation open and which cell
 * each is on. It holds the page's live connection (useLiveOperation.ts), which keeps the page's reads current.
 */

const ENDED: Record<LiveEnd, string> = {
  revoked: "Not live: the key was revoked",
  deleted: "Not live: the Operation was deleted",
  refused: "Not live: the Operation cannot be read",
};

function stateText(state: LiveState): string {
  if (state.status === "live") return "Live";
  if (state.status === "reconnecting") return "Reconnecting…";
  if (state.status === "ended") return ENDED[state.ended ?? "refused"];
  return "Connecting…";
}

const whereOf = (viewer: LiveViewer) => viewer.focus && `${viewer.focus.variantExternalId} · ${fieldLabel(viewer.focus.field)}`;

export function LiveBar({ operation }: { operation: Operation }) {
  const handle = useLiveOperation(operation);
  const [state, setState] = useState<LiveState | null>(null);
  useEffect(() => {
    if (!handle) return;
    setState(handle.client.current);
    return handle.client.onState(setState);
  }, [handle]);

  const others = state ? state.viewers.filter((viewer) => viewer.id !== state.you) : [];
  const status = state?.status ?? "connecting";
  return (
    <div className="live-bar">
      <span role="status" className={`live-state ${status}`}>
        {state ? stateText(state) : "Connecting…"}
      </span>
      {status === "live" && (
        <section className="here-now" aria-label="Here now">
          Here now:
          {others.length === 0 ? (
            <span className="muted">nobody else</span>
          ) : (
            <ul>
              {others.map((viewer) => (
                <li key={viewer.id}>
                  <HereDot viewer={viewer} /> {viewer.name}
                  {whereOf(viewer) && <span className="muted"> on {whereOf(viewer)}</span>}
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
    </div>
  );
}
