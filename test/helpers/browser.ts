import { chromium, type Browser } from 'playwright-core';

/**
 * Debian's chromium (installed by .ci/run when missing), driven by playwright-core: never a
 * browser download. The flags keep it off the network (this machine has none; without them it
 * keeps trying Google's hosts) and let it run as root in a container. playwright gives every
 * launch a fresh, empty profile of its own.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface LaunchedBrowser {
  browser: Browser;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<LaunchedBrowser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
  return {
    browser,
    async close() {
      await browser.close();
    },
  };
}
