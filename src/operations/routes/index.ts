import create from "./create";
import del from "./delete";
import get from "./get";
import list from "./list";
import patch from "./patch";
import status from "./status";

export const operationRoutes = [list, create, get, patch, status, del];
