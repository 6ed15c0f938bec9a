import { chromium, type Browser } from 'playwright-core';
import { afterAll } from 'vitest';
import { currentHost, planPrerequisites, prerequisites } from './prerequisites.js';

/**
 * Debian's chromium (installed by the tests' prerequisite step when missing: see
 * prerequisites.ts), driven by playwright-core: never a browser download. The flags keep it off the network (this machine has none; without them it
 * keeps trying Google's hosts) and let it run as root in a container. playwright gives every
 * launch a fresh, empty profile of its own.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface LaunchedBrowser {
  browser: Browser;
  close(): Promise<void>;
}

/** `env`: the browser's environment on top of this process's (FONTCONFIG_FILE, say). */
export async function launchChromium(
  options: { env?: Record<string, string> } = {},
): Promise<LaunchedBrowser> {
  // The same one line as the prerequisite step, should a test run without it.
  const plan = planPrerequisites(
    prerequisites().filter((p) => p.name === 'chromium'),
    { ...currentHost(), isRoot: false },
  );
  if (plan.action === 'refuse') throw new Error(plan.message);
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    ...(options.env && { env: { ...process.env, ...options.env } }),
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

/**
 * The one way browser tests get Chromium: launched on first use inside a test (so a browser
 * that cannot start fails that test, never a hook that would leave the file's tests "skipped"),
 * shared by the file's tests, closed after them.
 */
export function useChromium(): { browser(): Promise<Browser> } {
  let launched: Promise<LaunchedBrowser> | undefined;
  afterAll(async () => {
    const done = await launched?.catch(() => undefined);
    await done?.close();
  });
  return {
    async browser() {
      launched ??= launchChromium();
      return (await launched).browser;
    },
  };
}
