import abort from "./abort";
import get from "./get";
import reverse from "./reverse";
import start from "./start";

export const tenantRoutes = [start, get, abort, reverse];
