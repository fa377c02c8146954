import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import { lazyPageAt } from "./pages";
import { preferredLanguage, switchLanguage } from "./shared/i18n";
import "./shared/styles.css";

const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false, staleTime: 10_000 } } });

// The first page shows in the language chosen (English should its chunk not come), and a page loaded
// on its first visit shows at once, not through a fallback: early.ts started reading both while this
// script loaded, so they have mostly come by now. (No top-level await: with one, the build splits the
// first load into many more files, each a request and heavier gzipped.)
void Promise.all([switchLanguage(preferredLanguage()).catch(() => switchLanguage("en")), lazyPageAt(location.pathname)?.load()])
  .catch(() => undefined)
  .then(() =>
    createRoot(document.getElementById("root")!).render(
      <StrictMode>
        <QueryClientProvider client={queryClient}>
          <App />
        </QueryClientProvider>
      </StrictMode>,
    ),
  );
