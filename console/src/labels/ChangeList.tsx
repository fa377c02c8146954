import { useAccountNames } from "../api/directory";
import { formatChange, meaningfulChanges, type FieldChange } from "../shared/format";
import { fieldLabel } from "./fields";
import { formatMoney, useCurrency } from "./money";
import { usePeople } from "./names";
import { accountsNamedIn, fieldValueText, usersNamedIn } from "./values";
import { t } from "../shared/i18n";

const SHOWN = 8;

/**
 * A change record's changes, one per line, fields by their headers ("Max 37 → 40") and values as
 * people read them (amounts, names, dates); a created or deleted resource's empty fields are left out.
 * `accounts`: the names of the accounts, read by the list for all its rows.
 */
export function ChangeList({ changes, accounts }: { changes: FieldChange[]; accounts?: ReadonlyMap<string, string | null> }) {
  const worth = meaningfulChanges(changes);
  const currency = useCurrency();
  // A list names its rows' accounts in one request (`accounts`); alone, the list reads its own.
  const read = useAccountNames(accounts ? [] : accountsNamedIn(worth));
  const names = { money: (amount: number) => formatMoney(amount, currency), people: usePeople(usersNamedIn(worth)), accounts: accounts ?? read };
  return (
    <ul className="changes">
      {worth.slice(0, SHOWN).map((change) => (
        <li key={change.field} title={change.field}>
          {formatChange(change, (value) => fieldValueText(change.field, value, names), fieldLabel(change.field))}
        </li>
      ))}
      {worth.length > SHOWN && <li className="muted">{t("history.moreFields", { count: worth.length - SHOWN })}</li>}
    </ul>
  );
}
