/**
 * Picks the text to show for a requested locale: exact tag, then its base language
 * (fr-FR → fr), then the tenant's default locale, then any value (the first by tag). The API's
 * front representations resolve names this way, and the console shows names in its language so.
 */
export function resolveLocale(text: Record<string, string>, requested: string | null, tenantDefault: string): { locale: string | null; value: string | null } {
  const keys = Object.keys(text);
  const find = (tag: string) => keys.find((k) => k.toLowerCase() === tag.toLowerCase());
  const candidates = requested ? [requested, requested.split("-")[0]] : [];
  candidates.push(tenantDefault, tenantDefault.split("-")[0]);
  for (const candidate of candidates) {
    const key = find(candidate);
    if (key) return { locale: key, value: text[key] };
  }
  const sortedKeys = [...keys].sort();
  return sortedKeys.length ? { locale: sortedKeys[0], value: text[sortedKeys[0]] } : { locale: null, value: null };
}
