import { preferredLanguage, readFirstWords, readLaterWords } from "./shared/languages";
import { pathPattern } from "./shared/paths";

// A small script of its own, run as soon as it is read (index.html names it async, beside main.tsx):
// it starts reading the words of the language chosen and, on a page loaded on its first visit, that
// page's chunks and style sheets (index.html lists them by path: console/early-script.ts) and the later words, so that
// they come beside the console's scripts, not after them. It imports no page: the build would then
// split the first load into many more files.
void readFirstWords(preferredLanguage()).catch(() => undefined);

const pages: Record<string, string[]> = JSON.parse(document.querySelector<HTMLMetaElement>('meta[name="lazy-pages"]')?.content || "{}");
const page = Object.entries(pages).find(([path]) => pathPattern(path).test(location.pathname));
if (page) {
  void readLaterWords().catch(() => undefined);
  for (const href of page[1])
    document.head.appendChild(
      Object.assign(document.createElement("link"), { rel: href.endsWith(".css") ? "stylesheet" : "modulepreload", crossOrigin: "", href }),
    );
}
