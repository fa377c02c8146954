import * as z from "zod";
import { LINE_EXAMPLE, type LineRepresentation } from "../lines/schemas";
import { toOperationRepresentation, type OperationRow } from "../operations/queries";
import { OPERATION_EXAMPLE, operationRepresentation } from "../operations/schemas";
import { listEnvelope } from "../platform/schema/fields";
import type { Principal, RequestScope } from "../platform/core/principal";
import { resolveLocale, type LocalizedText } from "../platform/core/locale";

/*
 * Front representations: the admin ones with each localized field as one string, chosen by the
 * locale header → its base language → the tenant's default locale → any (platform/core/locale.ts),
 * plus the locale served and the svc-store-view echo.
 */

const served = {
  locale: z.string().nullable().describe("The locale of the text served (of name, for an Operation; of variantName, for a line)."),
  storeView: z.string().nullable().describe("The svc-store-view header, echoed."),
};

const SERVED_EXAMPLE = { locale: "fr", storeView: "fr-boutique" };

export const frontOperationRepresentation = operationRepresentation
  .extend({
    name: z.string(),
    description: z.string().nullable().describe("null when the Operation has no description."),
    ...served,
  })
  .meta({
    id: "FrontOperation",
    // The description has no French text: it is served in the tenant's default locale.
    examples: [{ ...OPERATION_EXAMPLE, name: OPERATION_EXAMPLE.name.fr, description: OPERATION_EXAMPLE.description.en, ...SERVED_EXAMPLE }],
  });

export const frontOperationPage = listEnvelope(frontOperationRepresentation).meta({ id: "FrontOperationPage" });

export const frontLineRepresentation = z
  .object({
    variantExternalId: z.string(),
    variantId: z.string().nullable(),
    variantName: z.string().nullable().describe("null when the line has no name."),
    minQuantity: z.number().int(),
    maxQuantity: z.number().int(),
    recommendedQuantity: z.number().int().nullable(),
    quantityIncrement: z.number().int().min(1).describe("The pack size: quantities are ordered in multiples of it."),
    availableToYou: z
      .number()
      .int()
      .optional()
      .describe(
        "What the caller's account may order of the line now: the least of what is left of the pool, of its cap, and maxQuantity. ACCOUNT keys (the best placed of their accounts, or accountId's), and OPERATOR keys with accountId.",
      ),
    updatedAt: z.string(),
    ...served,
  })
  .meta({ id: "FrontLine", examples: [{ ...LINE_EXAMPLE, variantName: LINE_EXAMPLE.variantName.fr, availableToYou: 20, ...SERVED_EXAMPLE }] });

export const frontLinePage = listEnvelope(frontLineRepresentation).meta({ id: "FrontLinePage" });

export interface Presentation {
  locale: string | null;
  tenantDefault: string;
  storeView: string | null;
}

export function presentationOf(principal: Principal, scope: RequestScope): Presentation {
  return { locale: scope.locale, tenantDefault: principal.tenantDefaultLocale, storeView: scope.storeView };
}

function localize(text: LocalizedText, presentation: Presentation) {
  return resolveLocale(text, presentation.locale, presentation.tenantDefault);
}

export function toFrontOperation(row: OperationRow, presentation: Presentation): z.infer<typeof frontOperationRepresentation> {
  const name = localize(row.name, presentation);
  return {
    ...toOperationRepresentation(row),
    name: name.value ?? "",
    description: localize(row.description, presentation).value,
    locale: name.locale,
    storeView: presentation.storeView,
  };
}

export function toFrontLine(line: LineRepresentation, presentation: Presentation, availableToYou?: number): z.infer<typeof frontLineRepresentation> {
  const name = localize(line.variantName, presentation);
  return {
    variantExternalId: line.variantExternalId,
    variantId: line.variantId,
    variantName: name.value,
    minQuantity: line.minQuantity,
    maxQuantity: line.maxQuantity,
    recommendedQuantity: line.recommendedQuantity,
    quantityIncrement: line.quantityIncrement,
    ...(availableToYou !== undefined && { availableToYou }),
    updatedAt: line.updatedAt,
    locale: name.locale,
    storeView: presentation.storeView,
  };
}
