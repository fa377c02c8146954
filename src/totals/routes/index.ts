import accounts from "./accounts";
import daily from "./daily";
import totals from "./totals";

export const totalsRoutes = [totals, accounts, daily];
