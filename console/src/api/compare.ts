import type { Schemas } from "@campaign-policy/client";
import { useMutation } from "@tanstack/react-query";
import { useSession } from "../shared/context";
import { answer } from "../shared/session";

/** An order compared with an Operation's lines. */

export type Comparison = Schemas["Comparison"];

export function useCompare(operationId: string) {
  const { api } = useSession();
  return useMutation({
    mutationFn: async (lines: { variantExternalId: string; quantity: number }[]) =>
      (await answer(api.POST("/v1/operations/{operationId}/compare", { params: { path: { operationId } }, body: { lines } }))).data,
  });
}
