/**
 * The fields change history records, by resource, as the API names them: the server records exactly
 * these (src/operations/aggregate.ts), and the console names and filters them.
 */

/** An Operation's (not its counts, version or timestamps, which follow from them). */
export const RECORDED_OPERATION_FIELDS = [
  "code",
  "externalId",
  "name",
  "description",
  "type",
  "status",
  "startDate",
  "endDate",
  "activateAt",
  "deactivateAt",
  "ownerIds",
  "createdAt",
] as const;

/** A line's: their names on a stored line and in operation_lines alike. */
export const RECORDED_LINE_FIELDS = ["variantId", "variantName", "minQuantity", "maxQuantity", "recommendedQuantity", "quantityIncrement"] as const;
