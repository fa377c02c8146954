import getSettings from "./get-settings";
import putSettings from "./put-settings";

export const historySettingsRoutes = [getSettings, putSettings];
