import { useEffect, useState } from "react";
import type { Operation } from "../../api/operations";
import { fieldLabel } from "../../labels/fields";
import { t, tx } from "../../shared/i18n";
import type { LiveState } from "./liveClient";
import { useLiveOperation } from "./useLiveOperation";

/**
 * Under an Operation's title, on each of its views: whether the page is live (said politely to a
 * screen reader when it changes), and `Here now`, who else has the Operation open and which cell
 * each is on. It holds the page's live connection (useLiveOperation.ts), which keeps the page's reads current.
 */

export function LiveBar({ operation }: { operation: Operation }) {
  const live = useLiveOperation(operation);
  const [state, setState] = useState<LiveState | null>(null);
  useEffect(() => {
    if (!live) return;
    setState(live.handle.client.current);
    return live.handle.client.onState(setState);
  }, [live]);

  const status = state?.status ?? "connecting";
  return (
    <div className="live-bar">
      <span role="status" className={`live-state ${status}`}>
        {live && state ? live.views.stateText(state, { t, tx }) : t("live.connecting")}
      </span>
      {live && state?.status === "live" && (
        <live.views.HereNow others={state.viewers.filter((viewer) => viewer.id !== state.you)} fieldLabel={fieldLabel} words={{ t, tx }} />
      )}
    </div>
  );
}
