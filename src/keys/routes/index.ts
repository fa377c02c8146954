import create from "./create";
import get from "./get";
import list from "./list";
import revoke from "./revoke";

export const keyRoutes = [list, create, get, revoke];
