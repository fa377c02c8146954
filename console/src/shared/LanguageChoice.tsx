import { useState } from "react";
import { LANGUAGES, type Language, prefetchLanguage, switchLanguage, t, useLanguage } from "./i18n";

const prefetchAll = () => {
  for (const language of Object.keys(LANGUAGES) as Language[]) prefetchLanguage(language);
};

/** The `Language` control: the console's words, numbers, dates and amounts in the language chosen, remembered in this browser. */
export function LanguageChoice() {
  const language = useLanguage();
  const [failed, setFailed] = useState(false);
  const choose = (next: Language) => {
    setFailed(false);
    switchLanguage(next, { remember: true }).catch(() => setFailed(true));
  };
  return (
    <label className="language">
      {t("app.language")}
      <select value={language} onChange={(event) => choose(event.target.value as Language)} onPointerEnter={prefetchAll} onFocus={prefetchAll}>
        {Object.entries(LANGUAGES).map(([tag, name]) => (
          <option key={tag} value={tag} lang={tag}>
            {name}
          </option>
        ))}
      </select>
      {failed && <span role="alert">{t("app.languageFailed")}</span>}
    </label>
  );
}
