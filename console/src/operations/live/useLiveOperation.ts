import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { fetchLinesOf, type Operation } from "../../api/operations";
import { useSession } from "../../shared/context";
import { queryKeys } from "../../shared/queryKeys";
import { answer } from "../../shared/session";
import type { LiveHandle } from "./liveHub";

/**
 * The Operation's live connection while the component is on the page (null until its chunk is in):
 * one per Operation however many parts of the page ask (liveHub.ts, loaded beside the page), opened
 * from the version the page read.
 */
export function useLiveOperation(operation: Operation): LiveHandle | null {
  const { api } = useSession();
  const queryClient = useQueryClient();
  const [handle, setHandle] = useState<LiveHandle | null>(null);
  const readAt = useRef(operation.version);
  const operationId = operation.id;

  useEffect(() => {
    let held: LiveHandle | null = null;
    let left = false;
    void import("./liveHub").then(({ acquireLive }) => {
      if (left) return;
      held = acquireLive(operationId, {
        session: api,
        queryClient,
        queryKeys,
        version: readAt.current,
        ticket: async () => (await answer(api.POST("/v1/operations/{operationId}/live-tickets", { params: { path: { operationId } } }))).data.ticket,
        readLines: (variants) => fetchLinesOf(api, operationId, variants),
      });
      setHandle(held);
    });
    return () => {
      left = true;
      held?.release();
    };
  }, [operationId, api, queryClient]);
  return handle;
}
