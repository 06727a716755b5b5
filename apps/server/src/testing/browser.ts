/**
 * Headless Chromium for browser tests (the server's video playback, msw's
 * setupWorker): Debian's package, driven by playwright-core, with the same
 * flags everywhere. Exported as `@genvideo/server/testing/browser`.
 */
import { type Browser, chromium } from "playwright-core";

/** `/usr/bin/chromium` unless `GENVIDEO_CHROMIUM` names another binary. */
export const CHROMIUM_PATH: string = process.env.GENVIDEO_CHROMIUM ?? "/usr/bin/chromium";

/**
 * @example
 * const browser = await launchChromium();
 * // Extra flags, e.g. a made-up host name that resolves to loopback:
 * const rebinding = await launchChromium({ extraArgs: ["--host-resolver-rules=MAP rebind.test 127.0.0.1"] });
 * const page = await browser.newPage();
 * await browser.close();
 */
export function launchChromium(options: { extraArgs?: readonly string[] } = {}): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      ...(options.extraArgs ?? []),
    ],
  });
}
