import { sameColumnsCodec } from "../shared/excel/sheet";
import { t } from "../shared/i18n";

/**
 * The lines grid as an Excel sheet: the CSV's columns (LINE_CSV_COLUMNS in src/lines/schemas.ts, the
 * grid's keys by the same names), the quantities as numbers, Ordered left out as the CSV leaves it.
 */
export const LINES_SHEET = sameColumnsCodec(
  () => t("excel.sheetLines"),
  [
    { name: "variantExternalId" },
    { name: "variantName" },
    { name: "minQuantity", number: true },
    { name: "maxQuantity", number: true },
    { name: "recommendedQuantity", number: true },
    { name: "quantityIncrement", number: true },
  ],
  { required: ["variantExternalId"], keyField: "variantExternalId", keyName: "variant" },
);
