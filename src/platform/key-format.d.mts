/** Types of key-format.mjs (the key format the Worker and `npm run key` share). */
export declare const SIGNED_KEY_PREFIX: "sk2_";
export declare const FRESH_KEY_MS: number;
export type InspectedKey = { format: "signed"; issuedAtMs: number } | { format: "legacy" } | { format: "invalid" };
export declare function mintSignedKey(secret: string, issuedAtMs?: number): Promise<string>;
export declare function inspectKey(secret: string, key: string): Promise<InspectedKey>;
export declare function isFreshlyIssued(issuedAtMs: number, now?: number): boolean;
