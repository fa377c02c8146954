import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import type { Operation } from "../../api/operations";
import { fieldLabel } from "../../labels/fields";
import { useSession } from "../../shared/context";
import type { LiveEnd, LiveState, LiveViewer } from "./liveClient";
import { acquireLive } from "./liveHub";
import { HereDot } from "./HereMark";

/**
 * Under an Operation's title, on each of its views: whether the page is live (said politely to a
 * screen reader when it changes), and `Here now`, who else has the Operation open and which cell
 * each is on. It holds the page's live connection (liveHub.ts), which keeps the page's reads current.
 */

const ENDED: Record<LiveEnd, string> = {
  revoked: "Not live: this key was revoked.",
  deleted: "Not live: this Operation was deleted.",
  refused: "Not live: this Operation can no longer be read with this key.",
};

function stateText(state: LiveState): string {
  if (state.status === "live") return "Live";
  if (state.status === "reconnecting") return "Reconnecting…";
  if (state.status === "ended") return ENDED[state.ended ?? "refused"];
  return "Connecting…";
}

const whereOf = (viewer: LiveViewer) => viewer.focus && `${viewer.focus.variantExternalId} · ${fieldLabel(viewer.focus.field)}`;

export default function LiveBar({ operation }: { operation: Operation }) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [state, setState] = useState<LiveState | null>(null);
  // The version when the page opened it: what a later render shows is the connection's to move on.
  const [openedAt] = useState(operation.version);

  useEffect(() => {
    const handle = acquireLive(operation.id, { api, queryClient, version: openedAt });
    setState(handle.client.current);
    const stop = handle.client.onState(setState);
    return () => {
      stop();
      handle.release();
    };
  }, [operation.id, api, queryClient, openedAt]);

  const others = state ? state.viewers.filter((viewer) => viewer.id !== state.you) : [];
  const status = state?.status ?? "connecting";
  return (
    <div className="live-bar">
      <span role="status" className={`live-state ${status}`}>
        {state ? stateText(state) : "Connecting…"}
      </span>
      {status === "live" && (
        <section className="here-now" aria-label="Here now">
          <span className="here-title">Here now:</span>
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
