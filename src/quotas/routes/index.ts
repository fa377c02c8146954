import create from "./create";
import del from "./delete";
import deleteMany from "./delete-many";
import evaluate from "./evaluate";
import get from "./get";
import getDefault from "./get-default";
import impact from "./impact";
import list from "./list";
import putDefault from "./put-default";
import putMany from "./put-many";
import restore from "./restore";
import update from "./update";

export const quotaRoutes = [list, create, putMany, deleteMany, get, update, del, restore, getDefault, putDefault, evaluate, impact];
