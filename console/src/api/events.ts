import type { ApiClient, Schemas } from "@campaign-policy/client";
import { answer, type QueryOf } from "../shared/session";

/** The event feed. */

export type Event = Schemas["Event"];
type EventQuery = QueryOf<"/v1/events">;

export const fetchEvents = async (api: ApiClient, query: EventQuery) => (await answer(api.GET("/v1/events", { params: { query } }))).data;
