/** Types of identifier-text.mjs (the rule for ids the Worker and `npm run key` share). */
export declare function identifierProblem(text: string): string | undefined;
export declare function canonicalIdentifier(text: string): string;
export declare function characterCount(text: string): number;
