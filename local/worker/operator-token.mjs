// The header the local server's operator routes take their token in: shared by the routes
// (operator-routes.ts) and the commands that call them (scripts/lib/local-server.mjs). Types: operator-token.d.mts.
export const OPERATOR_TOKEN_HEADER = "svc-local-operator-token";
