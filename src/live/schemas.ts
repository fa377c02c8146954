import * as z from "zod";

export const liveTicketRepresentation = z
  .object({
    ticket: z.string().describe("Opens one connection: GET …/live?ticket=<ticket>. Single use."),
    expiresAt: z.string().describe("60 s after it was issued."),
  })
  .meta({ id: "LiveTicket", examples: [{ ticket: "lt_Q2hhbmdlIHRoaXMgZXhhbXBsZSB0aWNrZXQ", expiresAt: "2026-03-04T10:16:00.000Z" }] });
