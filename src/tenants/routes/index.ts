import abort from "./abort";
import get from "./get";
import list from "./list";
import reverse from "./reverse";
import start from "./start";

export const tenantRoutes = [list, start, get, abort, reverse];
