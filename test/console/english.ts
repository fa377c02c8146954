import { switchLanguage, withLaterWords } from "../../console/src/shared/i18n";

// The console's pure modules say their words in English, as a browser in English reads them (the
// later pages' words too, as they load with those pages).
await switchLanguage("en");
await withLaterWords(Promise.resolve());
