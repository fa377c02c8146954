import type { ApiClient } from "@campaign-policy/client";
import { createContext, useContext } from "react";
import type { Session } from "./session";

export const SessionContext = createContext<{ session: Session; api: ApiClient } | null>(null);

export function useSession() {
  const value = useContext(SessionContext);
  if (!value) throw new Error("useSession outside a signed-in console");
  return value;
}
