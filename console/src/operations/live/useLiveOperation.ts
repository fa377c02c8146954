import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { fetchLinesOf, type Operation } from "../../api/operations";
import { useSession } from "../../shared/context";
import { queryKeys } from "../../shared/queryKeys";
import { withLaterWords } from "../../shared/languages";
import { answer } from "../../shared/session";
import type { LiveHandle } from "./liveHub";
import type * as Loaded from "./loaded";

/** The page's live connection, and what shows it (loaded beside the page with it). */
export interface Live {
  handle: LiveHandle;
  views: typeof Loaded;
}

/**
 * The Operation's live connection while the component is on the page (null until its chunk is in):
 * one per Operation however many parts of the page ask (liveHub.ts, loaded beside the page), opened
 * from the version the page read.
 */
export function useLiveOperation(operation: Operation): Live | null {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [live, setLive] = useState<Live | null>(null);
  const readAt = useRef(operation.version);
  const operationId = operation.id;

  useEffect(() => {
    let held: LiveHandle | null = null;
    let left = false;
    void withLaterWords(import("./loaded")).then((views) => {
      if (left) return;
      held = views.acquireLive(operationId, {
        session: api,
        queryClient,
        queryKeys,
        version: readAt.current,
        ticket: async () => (await answer(api.POST("/v1/operations/{operationId}/live-tickets", { params: { path: { operationId } } }))).data.ticket,
        readLines: (variants) => fetchLinesOf(api, operationId, variants),
      });
      setLive({ handle: held, views });
    });
    return () => {
      left = true;
      held?.release();
    };
  }, [operationId, api, queryClient]);
  return live;
}
