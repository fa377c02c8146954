import { type ComponentType, createElement, lazy, useState } from "react";
import { withLaterWords } from "./shared/languages";
import { pathPattern } from "./shared/paths";

/**
 * A page loaded on its first visit: its path (as App's routes match it), its chunk (given with the
 * later words, kept once loaded) and `Page`, the component `name` of its module.
 */
function page<Module, Name extends keyof Module>(path: string, read: () => Promise<Module>, name: Name) {
  let loaded: Module | undefined;
  const load = () => withLaterWords(read()).then((module) => (loaded = module));
  return { path, load, Page: lazyPage(load, () => loaded, name) };
}

/**
 * The pages loaded on their first visit (all but the Operations and an Operation's lines, which the
 * first load holds), the most specific path first. The build lists each page's chunks by path in
 * index.html (console/early-script.ts reads the `page(…)` calls below), for early.ts to start reading
 * the page an address shows beside the console's scripts; main.tsx shows it once it is in.
 */
export const LAZY_PAGES = {
  history: page("/console/operations/:operationId/history", () => import("./operations/HistoryPage"), "HistoryPage"),
  orders: page("/console/operations/:operationId/orders", () => import("./operations/OrdersPage"), "OrdersPage"),
  totals: page("/console/operations/:operationId/totals", () => import("./operations/TotalsPage"), "TotalsPage"),
  simulator: page("/console/quota-rules/simulator", () => import("./rules/Simulator"), "Simulator"),
  newRule: page("/console/quota-rules/new", () => import("./rules/RuleForm"), "RuleFormPage"),
  rule: page("/console/quota-rules/:ruleId", () => import("./rules/RuleForm"), "RuleFormPage"),
  rules: page("/console/quota-rules", () => import("./rules/RulesPage"), "RulesPage"),
  orderCheck: page("/console/order-check", () => import("./desk/OrderCheckPage"), "OrderCheckPage"),
  accounts: page("/console/accounts", () => import("./desk/AccountsPage"), "AccountsPage"),
  events: page("/console/events", () => import("./desk/EventsPage"), "EventsPage"),
  webhooks: page("/console/webhooks/:webhookId?", () => import("./desk/WebhooksPage"), "WebhooksPage"),
  keys: page("/console/keys", () => import("./desk/KeysPage"), "KeysPage"),
  changes: page("/console/changes", () => import("./desk/ChangesPage"), "ChangesPage"),
  settings: page("/console/settings", () => import("./desk/SettingsPage"), "SettingsPage"),
};

/** The page loaded on first visit that `pathname` shows, if it shows one. */
export const lazyPageAt = (pathname: string) => Object.values(LAZY_PAGES).find(({ path }) => pathPattern(path).test(pathname));

/**
 * A page's component, `name` of its module: shown at once when its chunk is in (main.tsx waited for
 * the first page's), else through Suspense while it loads (a fallback shown, then the page: React
 * holds such a reveal back up to 300 ms). Which of the two is chosen once, as the page mounts: a
 * switch would mount the page again and lose what is typed in it.
 */
function lazyPage<Module, Name extends keyof Module>(load: () => Promise<Module>, loaded: () => Module | undefined, name: Name): Module[Name] {
  const Lazy = lazy(() => load().then((module) => ({ default: module[name] as ComponentType<object> })));
  return ((props: object) => createElement(PageOnceLoaded, { loaded: loaded()?.[name] as ComponentType<object> | undefined, Lazy, props })) as Module[Name];
}

function PageOnceLoaded({ loaded, Lazy, props }: { loaded: ComponentType<object> | undefined; Lazy: ComponentType<object>; props: object }) {
  const [shown] = useState(() => loaded ?? Lazy);
  return createElement(shown, props);
}
