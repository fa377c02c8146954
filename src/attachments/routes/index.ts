import { attachPost, attachPut } from "./attach";
import detach from "./detach";
import list from "./list";

export const attachmentRoutes = [list, attachPut, attachPost, detach];
