import list from "./list";
import operationHistory from "./operation-history";

export const historyRoutes = [list, operationHistory];
