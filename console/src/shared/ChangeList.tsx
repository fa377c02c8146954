import { formatChange, meaningfulChanges, type FieldChange } from "./format";

const SHOWN = 8;

/** A change record's changes, one per line ("maxQuantity 37 → 40"); a created or deleted resource's empty fields are left out. */
export function ChangeList({ changes }: { changes: FieldChange[] }) {
  const worth = meaningfulChanges(changes);
  return (
    <ul className="changes">
      {worth.slice(0, SHOWN).map((change) => (
        <li key={change.field}>{formatChange(change)}</li>
      ))}
      {worth.length > SHOWN && <li className="muted">… and {worth.length - SHOWN} more fields</li>}
    </ul>
  );
}
