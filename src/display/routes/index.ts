import get from "./get";
import put from "./put";

export const displayRoutes = [get, put];
