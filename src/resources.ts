import type { RouteDefinition } from "./platform/routes";

/** Routes of the resources beyond Operations; each resource adds its list here. */
export const resourceRoutes: RouteDefinition[] = [];
