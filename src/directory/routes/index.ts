import list from "./list";
import put from "./put";

export const directoryRoutes = [list, put];
