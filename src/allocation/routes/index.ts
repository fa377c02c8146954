import listAccounts from "./list-accounts";
import plan from "./plan";
import putAccounts from "./put-accounts";
import putLines from "./put-lines";

export const allocationRoutes = [putLines, putAccounts, listAccounts, plan];
