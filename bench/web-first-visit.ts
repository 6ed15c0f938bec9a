import { request } from 'node:http';
import { chromium } from 'playwright-core';
import { CHROMIUM_PATH } from './suites/lighthouse.js';
import { median } from './repeat.js';

/** What a first visit to a page cost: its HTML, CSS and JS on the wire, and the paint's order. */
export interface FirstVisit {
  /** Bytes Chromium received for the document, stylesheets and scripts (headers included). */
  bytes: number;
  /** The content encodings the answers came in ("gzip", "br", "identity"). */
  encodings: string[];
  /** Whether the first contentful paint came before the page's script began. */
  paintedBeforeScript: boolean;
  fcpMs: number;
  /** How long the script ran, from its first mark to its last (ms). */
  scriptMs: number;
}

const COUNTED_TYPES = new Set(['Document', 'Stylesheet', 'Script']);

/**
 * Opens `url` in a fresh context (empty cache, no service worker: a first visit) as a phone on
 * Lighthouse's mobile conditions (150 ms round trips, 1.6 Mbit/s down, the CPU slowed 4x),
 * counting through the DevTools protocol the bytes on the wire (encodedDataLength of each
 * finished request) of the page's document, stylesheets and scripts, and reading from the
 * page's performance entries whether the first contentful paint was rendered (its `paintTime`)
 * before the script's mark (`emutrack:script-start`, the first statement of its features, which
 * the deferred script starts only after the first frame: see client/main.ts).
 */
async function visitOnce(
  browser: Awaited<ReturnType<typeof chromium.launch>>,
  url: string,
): Promise<FirstVisit> {
  const context = await browser.newContext({
    viewport: { width: 412, height: 823 },
    deviceScaleFactor: 1.75,
    isMobile: true,
    hasTouch: true,
    locale: 'zh-CN',
  });
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    const types = new Map<string, { type: string; encoding: string }>();
    let bytes = 0;
    const encodings = new Set<string>();
    cdp.on('Network.responseReceived', (event) => {
      const encoding = Object.entries(event.response.headers).find(
        ([name]) => name.toLowerCase() === 'content-encoding',
      )?.[1];
      types.set(event.requestId, { type: event.type, encoding: String(encoding ?? 'identity') });
    });
    cdp.on('Network.loadingFinished', (event) => {
      const seen = types.get(event.requestId);
      if (!seen || !COUNTED_TYPES.has(seen.type)) return;
      bytes += event.encodedDataLength;
      encodings.add(seen.encoding);
    });
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 150,
      downloadThroughput: (1.6 * 1024 * 1024) / 8,
      uploadThroughput: (750 * 1024) / 8,
    });
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
    await page.goto(url, { waitUntil: 'networkidle' });
    const timing = await page.evaluate(() => {
      // The frame's rendering on the page's thread (paintTime), not when the screen showed it
      // (startTime, the presentation: later, off that thread): what a script could have held.
      const entry = performance.getEntriesByName('first-contentful-paint')[0] as unknown as
        { paintTime?: number; startTime: number } | undefined;
      const fcp = entry?.paintTime ?? entry?.startTime;
      const script = performance.getEntriesByName('emutrack:script-start')[0]?.startTime;
      const end = performance.getEntriesByName('emutrack:script-end')[0]?.startTime;
      return { fcp: fcp ?? -1, script: script ?? -1, end: end ?? -1 };
    });
    if (timing.fcp < 0) throw new Error(`${url}: no first contentful paint`);
    return {
      bytes,
      encodings: [...encodings].sort(),
      // No mark at all means the script never ran, which is "before" too.
      paintedBeforeScript: timing.script < 0 || timing.fcp < timing.script,
      fcpMs: timing.fcp,
      scriptMs: timing.script < 0 || timing.end < 0 ? 0 : timing.end - timing.script,
    };
  } finally {
    await context.close();
  }
}

/** `runs` first visits of each URL; per URL the median bytes and how many painted first. */
export async function firstVisits(
  urls: readonly string[],
  runs: number,
  env: Record<string, string>,
): Promise<
  Map<
    string,
    { bytes: number; encodings: string[]; paintedFirst: number; fcpMs: number; scriptMs: number }
  >
> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    env: { ...process.env, ...env } as Record<string, string>,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
  try {
    const out = new Map<
      string,
      { bytes: number; encodings: string[]; paintedFirst: number; fcpMs: number; scriptMs: number }
    >();
    // A fresh browser's first page pays for the browser's own start (measured: the home page's
    // first contentful paint 1.4 s when first, 0.6-0.9 s after): one visit first, not counted.
    if (urls[0]) await visitOnce(browser, urls[0]);
    for (const url of urls) {
      const visits: FirstVisit[] = [];
      for (let i = 0; i < runs; i++) visits.push(await visitOnce(browser, url));
      out.set(url, {
        bytes: median(visits.map((v) => v.bytes)),
        encodings: [...new Set(visits.flatMap((v) => v.encodings))].sort(),
        paintedFirst: visits.filter((v) => v.paintedBeforeScript).length,
        fcpMs: median(visits.map((v) => v.fcpMs)),
        scriptMs: median(visits.map((v) => v.scriptMs)),
      });
    }
    return out;
  } finally {
    await browser.close();
  }
}

/** The bytes of the body of GET `url` as sent with `Accept-Encoding: acceptEncoding`. */
export function encodedBodyBytes(url: string, acceptEncoding: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { 'accept-encoding': acceptEncoding } }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => resolve(bytes));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}
