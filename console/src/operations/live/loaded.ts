/**
 * What an Operation's page loads beside it, as one chunk outside the console's first load: the live
 * connection (liveHub.ts) and what shows it (views.tsx). Neither imports a module of the first load.
 */
export { acquireLive } from "./liveHub";
export { HereMark, HereNow, LiveConflicts, stateText } from "./views";
