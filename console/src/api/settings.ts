import type { Schemas } from "@campaign-policy/client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useSession } from "../shared/context";
import { queryKeys } from "../shared/queryKeys";
import { answer } from "../shared/session";

/** The tenant's settings: how amounts are shown, what an activation needs. */

export type DisplaySettings = Schemas["DisplaySettings"];
export type ApprovalSettings = Schemas["ApprovalSettings"];

/** How the tenant's amounts are shown (read by both roles, rarely changed). */
export function useDisplaySettings() {
  const { api } = useSession();
  return useQuery({
    queryKey: queryKeys.displaySettings,
    staleTime: 5 * 60_000,
    queryFn: async () => (await answer(api.GET("/v1/settings/display"))).data,
  });
}

export function useSaveDisplaySettings(onDone: () => void) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (settings: DisplaySettings) => (await answer(api.PUT("/v1/settings/display", { body: settings }))).data,
    onSuccess: (saved) => {
      queryClient.setQueryData(queryKeys.displaySettings, saved);
      void queryClient.invalidateQueries({ queryKey: queryKeys.history.all });
      onDone();
    },
  });
}

export function useApprovalSettings() {
  const { api, session } = useSession();
  return useQuery({
    queryKey: queryKeys.approvalSettings,
    enabled: session.role === "OPERATOR",
    queryFn: async () => (await answer(api.GET("/v1/settings/approvals"))).data,
  });
}

export function useSaveApprovalSettings(onDone: () => void) {
  const { api } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (settings: ApprovalSettings) => (await answer(api.PUT("/v1/settings/approvals", { body: settings }))).data,
    onSuccess: (saved) => {
      queryClient.setQueryData(queryKeys.approvalSettings, saved);
      void queryClient.invalidateQueries({ queryKey: queryKeys.history.all });
      onDone();
    },
  });
}
