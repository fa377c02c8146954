/** ISO-8601 UTC with milliseconds: sorts as a string in time order. Read from Date.now, the one clock tests move. */
export function nowIso(): string {
  return new Date(Date.now()).toISOString();
}

/** Business dates are kept to the second, always in one layout, so string order is time order. */
export function toIsoSeconds(value: string | number | Date): string {
  return `${new Date(value).toISOString().slice(0, 19)}Z`;
}
