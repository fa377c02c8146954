import diff from "./diff";
import list from "./list";
import operationHistory from "./operation-history";
import version from "./version";
import { historySettingsRoutes } from "../archive/routes";

export const historyRoutes = [list, operationHistory, version, diff, ...historySettingsRoutes];
