import ticket from "./ticket";

export const liveRoutes = [ticket];
