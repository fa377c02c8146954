import { switchLanguage } from "../../console/src/shared/i18n";

// The console's pure modules say their words in English, as a browser in English reads them.
await switchLanguage("en");
