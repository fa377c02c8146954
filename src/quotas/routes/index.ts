import create from "./create";
import del from "./delete";
import evaluate from "./evaluate";
import get from "./get";
import getDefault from "./get-default";
import list from "./list";
import putDefault from "./put-default";
import update from "./update";

export const quotaRoutes = [list, create, get, update, del, getDefault, putDefault, evaluate];
