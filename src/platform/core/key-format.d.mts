/** Types of key-format.mjs (the key format the Worker and `npm run key` share). */
export declare const KEY_PREFIX_LENGTH: number;
export declare const FRESH_KEY_MS: number;
export type InspectedKey = { format: "signed"; issuedAtMs: number } | { format: "legacy" } | { format: "invalid" };
export declare function mintSignedKey(secret: string, issuedAtMs?: number, version?: "sk3" | "sk2"): Promise<string>;
export declare function inspectKey(secret: string, key: string): Promise<InspectedKey>;
export declare function keyPrefix(key: string): string;
export declare function distinctPrefix(key: string, others: readonly string[]): string | null;
export declare function isFreshlyIssued(issuedAtMs: number, now?: number): boolean;
