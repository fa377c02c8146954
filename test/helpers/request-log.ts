import { vi } from "vitest";
import type { ApiResponse } from "./client";

/** The request log line the Worker writes for each request (src/platform/data/trace.ts). */
export interface LogLine {
  requestId: string;
  tenant: string | null;
  keyId: string | null;
  method: string;
  route: string | null;
  status: number;
  durationMs: number;
  d1RoundTrips: number;
  d1SequentialRoundTrips: number;
}

/** Collects the JSON log lines written from now on (restore with vi.restoreAllMocks). */
export function captureLog() {
  const lines: LogLine[] = [];
  vi.spyOn(console, "log").mockImplementation((text: unknown) => {
    if (typeof text === "string" && text.startsWith("{")) lines.push(JSON.parse(text));
  });
  return { lineOf: (response: ApiResponse) => lines.filter((line) => line.requestId === response.headers.get("x-request-id")) };
}
