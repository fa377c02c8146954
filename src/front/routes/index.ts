import get from "./get";
import lines from "./lines";
import list from "./list";

export const frontRoutes = [list, get, lines];
