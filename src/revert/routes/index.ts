import revert from "./revert";

export const revertRoutes = [revert];
