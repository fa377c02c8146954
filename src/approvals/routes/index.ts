import decide from "./decide";
import getSettings from "./get-settings";
import list from "./list";
import putSettings from "./put-settings";

export const approvalRoutes = [getSettings, putSettings, list, decide];
