/** Types of required-secrets.mjs (the secrets the Worker, `npm start` and `npm run deploy` agree on). */
export declare const REQUIRED_SECRETS: readonly ("PAGINATION_SECRET" | "KEY_SIGNING_SECRET")[];
export declare function missingSecrets(present: readonly string[] | object | undefined): ("PAGINATION_SECRET" | "KEY_SIGNING_SECRET")[];
