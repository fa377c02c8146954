/** A route's path as a pattern: `:name` one segment, `/:name?` one or none (as App's routes read them). */
export const pathPattern = (path: string) => new RegExp(`^${path.replace(/\/:\w+\?/g, "(?:/[^/]+)?").replace(/:\w+/g, "[^/]+")}/?$`);
