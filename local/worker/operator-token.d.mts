/** Types of operator-token.mjs. */
export declare const OPERATOR_TOKEN_HEADER: "svc-local-operator-token";
