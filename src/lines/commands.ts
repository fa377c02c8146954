/** Commands this resource runs inside the Operation's coordinator (see operations/durable-object.ts). */
export const operationCommands = {};
