import { t } from "../shared/i18n";

/** A scope key as the rules pages show it: its id, or "any" where the rule has none. */
export const scopeText = (value: string | null) => value ?? t("changes.any");
