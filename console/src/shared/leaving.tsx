import { t } from "./i18n";
import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from "react";
import { Router } from "wouter";
import { ConfirmDialog } from "./dialogs";

/**
 * Unsaved edits are never dropped without asking. A page holding some says so (useUnsavedEdits);
 * then leaving it asks first: a link (or anything the router navigates) and the browser's Back and
 * Forward open a dialog, closing or reloading the tab the browser's own question (beforeunload).
 */

/** The pages holding unsaved edits now. */
const holders = new Set<symbol>();
/** Asks whether to leave (set by <LeaveGuard>), then runs `leave` if the answer is yes. */
let ask: ((leave: () => void) => void) | null = null;
/** The address the console shows: where Back or Forward is taken back to when the person stays. */
let shown = location.href;
/** Set while a confirmed Back or Forward is under way: that move is let through. */
let leavingByHistory = false;

/** Whether two addresses are one page (another view of it: its filters and sort live in the query), which keeps its edits. */
const samePage = (to: string, from: string) => new URL(to, location.href).pathname === new URL(from, location.href).pathname;

for (const type of ["pushState", "replaceState"])
  addEventListener(type, () => {
    shown = location.href;
  });
// Added when this module loads, before the router's own listener (it subscribes on its first render),
// so a Back the person has not confirmed is undone before the router sees it and unmounts the page.
addEventListener("popstate", (event) => {
  if (leavingByHistory || !holders.size || !ask || samePage(location.href, shown)) {
    leavingByHistory = false;
    shown = location.href;
    return;
  }
  event.stopImmediatePropagation();
  // The browser has moved one entry; an entry with the page's address is put back on top, so
  // stepping back from it once more (when the person confirms) goes where they asked to go.
  history.pushState(history.state, "", shown);
  ask(() => {
    leavingByHistory = true;
    history.back();
  });
});
addEventListener("beforeunload", (event) => {
  if (!holders.size) return;
  event.preventDefault();
  event.returnValue = ""; // browsers from before preventDefault() asked only when this was set
});

/** Marks the calling page as holding unsaved edits while `unsaved` is true. */
export function useUnsavedEdits(unsaved: boolean) {
  const [id] = useState(() => Symbol("unsaved edits"));
  useEffect(() => {
    if (!unsaved) return;
    holders.add(id);
    return () => void holders.delete(id);
  }, [unsaved, id]);
}

/**
 * A form's unsaved edits: its values differ from the ones it opened with. Call the answer once the
 * values are saved and the form stays open (they are then the ones to compare with).
 */
export function useUnsavedForm(values: unknown): () => void {
  const current = JSON.stringify(values);
  const [saved, setSaved] = useState(current);
  useUnsavedEdits(current !== saved);
  return () => setSaved(current);
}

const ConfirmLeave = createContext<(leave: () => void) => void>((leave) => leave());

/** Runs an action that drops the page's unsaved edits (switching views, signing out) now, or after asking. */
export const useConfirmLeave = () => useContext(ConfirmLeave);

/** The router of the console's pages, asking before any navigation away from unsaved edits. */
export function LeaveGuard({ children }: { children: ReactNode }) {
  const [pending, setPending] = useState<(() => void) | null>(null);
  const confirm = useCallback((leave: () => void) => (holders.size ? setPending(() => leave) : leave()), []);
  useEffect(() => {
    ask = confirm;
    return () => {
      ask = null;
    };
  }, [confirm]);
  return (
    <ConfirmLeave.Provider value={confirm}>
      <Router aroundNav={(navigate, to, options) => (samePage(to, location.href) ? navigate(to, options) : confirm(() => navigate(to, options)))}>
        {children}
      </Router>
      {pending && (
        <ConfirmDialog
          title={t("common.leaveTitle")}
          confirm={t("common.leaveConfirm")}
          onClose={() => setPending(null)}
          onConfirm={() => {
            setPending(null);
            pending();
          }}
        >
          <p>{t("common.leaveText")}</p>
        </ConfirmDialog>
      )}
    </ConfirmLeave.Provider>
  );
}
