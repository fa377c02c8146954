import { attachPost, attachPut } from "./attach";
import attachmentsList from "./attachments-list";
import detach from "./detach";
import directoryList from "./directory-list";
import directoryPut from "./directory-put";

export const accountRoutes = [directoryList, directoryPut, attachmentsList, attachPut, attachPost, detach];
