import { formatChange, formatValue, meaningfulChanges, type FieldChange } from "../shared/format";
import { fieldLabel } from "./fields";
import { formatMoney, useCurrency } from "./money";

const SHOWN = 8;
/** Fields that hold an amount (a rule's and the tenant default's minimum), written in the tenant's currency. */
const AMOUNTS = new Set(["minimum"]);

/** A change record's changes, one per line, fields by their headers ("Max 37 → 40"); a created or deleted resource's empty fields are left out. */
export function ChangeList({ changes }: { changes: FieldChange[] }) {
  const worth = meaningfulChanges(changes);
  const currency = useCurrency();
  const writeValue = (field: string) => (value: unknown) =>
    AMOUNTS.has(field) && typeof value === "number" ? formatMoney(value, currency) : formatValue(value);
  return (
    <ul className="changes">
      {worth.slice(0, SHOWN).map((change) => (
        <li key={change.field} title={change.field}>
          {formatChange(change, writeValue(change.field), fieldLabel(change.field))}
        </li>
      ))}
      {worth.length > SHOWN && <li className="muted">… and {worth.length - SHOWN} more fields</li>}
    </ul>
  );
}
