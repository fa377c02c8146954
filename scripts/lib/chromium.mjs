// Debian's Chromium (apt-get install -y chromium), driven by playwright-core, which never downloads a
// browser: used by the browser tests and the console bench.
import { chromium } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
// This machine's network is closed: keep Chromium from reaching for Google's services.
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** A browser with a throwaway profile. */
export function launchChromium(options = {}) {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true, ...options });
}

/** A persistent context in a profile directory of our own (launch() refuses --user-data-dir). */
export function launchChromiumProfile(profile, options = {}) {
  return chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true, ...options });
}
