import create from "./create";
import del from "./delete";
import deliveries from "./deliveries";
import get from "./get";
import list from "./list";
import redeliver from "./redeliver";
import update from "./update";

export const webhookRoutes = [list, create, get, update, del, deliveries, redeliver];
