import del from "./delete";
import list from "./list";
import put from "./put";

export const lineRoutes = [list, put, del];
