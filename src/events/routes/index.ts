import list from "./list";

export const eventRoutes = [list];
