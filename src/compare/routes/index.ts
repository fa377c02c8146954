import compare from "./compare";

export const compareRoutes = [compare];
