import type { RouteDefinition } from "./platform/routes";
import { lineRoutes } from "./lines/routes";
import { accountRoutes } from "./accounts/routes";
import { quotaRoutes } from "./quotas/routes";
import { cartRoutes } from "./carts/routes";
import { compareRoute } from "./compare/route";
import { frontRoutes } from "./front/routes";

/** Routes of the resources beyond Operations; each resource adds its list here. */
export const resourceRoutes: RouteDefinition[] = [
  ...lineRoutes,
  ...accountRoutes,
  ...quotaRoutes,
  ...cartRoutes,
  compareRoute,
  ...frontRoutes,
];
