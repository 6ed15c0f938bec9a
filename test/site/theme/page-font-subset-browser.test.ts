import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { noCjkFontConfig } from '../../../bench/cjk-system-font.js';
import { PAGE_FONT_BASE, PAGE_FONT_FAMILY } from '../../../src/http/site/theme/page-font-subset.js';
import { launchChromium, type LaunchedBrowser } from '../../helpers/browser.js';
import { useSite } from '../site-fixture.js';

const TITLE = '京沪高铁';
const CHINESE = '京沪高速铁路全长1318公里，CR400AF型动车组担当G1次列车。';

describe("a page's own font subset in a browser without CJK fonts", () => {
  const site = useSite({ listen: true });
  let launched: LaunchedBrowser | undefined;
  let dir = '';
  afterAll(async () => {
    await launched?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it(
    'is preloaded, fetched from the site and draws the Chinese text, with no slice fetched',
    { timeout: 120_000 },
    async () => {
      const admin = await site.account('admin', 'administrator');
      const page = await site.call('POST', '/wp-json/wp/v2/pages', {
        auth: admin,
        body: { title: TITLE, content: `<p>${CHINESE}</p>`, status: 'publish' },
      });
      // The machine's CJK fonts (if any) left out: a reader's minimal Linux.
      dir = await mkdtemp(path.join(tmpdir(), 'emutrack-page-font-'));
      launched = await launchChromium({ env: { FONTCONFIG_FILE: await noCjkFontConfig(dir) } });
      const tab = await launched.browser.newPage();
      const fonts: { url: string; status: number }[] = [];
      tab.on('response', (res) => {
        if (res.request().resourceType() === 'font')
          fonts.push({ url: new URL(res.url()).pathname, status: res.status() });
      });
      await tab.goto(page.body.link, { waitUntil: 'load' });
      const seen = await tab.evaluate(
        async ({ family, text }) => {
          const doc = (
            globalThis as unknown as {
              document: {
                fonts: {
                  ready: Promise<unknown>;
                  check(font: string, text: string): boolean;
                  forEach(f: (face: { family: string; status: string }) => void): void;
                };
              };
            }
          ).document;
          await doc.fonts.ready;
          const faces: string[] = [];
          doc.fonts.forEach((face) => {
            if (face.family.replace(/"/g, '') === family) faces.push(face.status);
          });
          return { faces, drawn: doc.fonts.check(`16px "${family}"`, text) };
        },
        { family: PAGE_FONT_FAMILY, text: `${TITLE}${CHINESE}` },
      );
      // One face of the page's family, loaded, holding every character of the text.
      expect(seen).toEqual({ faces: ['loaded'], drawn: true });
      const subsets = fonts.filter((f) => f.url.startsWith(`${PAGE_FONT_BASE}/`));
      expect(subsets).toEqual([
        {
          url: expect.stringMatching(
            /^\/wp-content\/fonts\/noto-sans-sc-page\/[0-9a-f]{20}\.woff2$/,
          ),
          status: 200,
        },
      ]);
      // The subset holds all the page's characters: no slice of the served face is needed.
      expect(fonts.filter((f) => !f.url.startsWith(`${PAGE_FONT_BASE}/`))).toEqual([]);

      // What Chromium drew the paragraph's text in: a web font (the subset), not a system face.
      const cdp = await tab.context().newCDPSession(tab);
      await cdp.send('DOM.enable');
      await cdp.send('CSS.enable');
      const { root } = await cdp.send('DOM.getDocument', { depth: -1 });
      const { nodeIds } = await cdp.send('DOM.querySelectorAll', {
        nodeId: root.nodeId,
        selector: '.entry-content p',
      });
      expect(nodeIds).toHaveLength(1);
      const { fonts: used } = await cdp.send('CSS.getPlatformFontsForNode', {
        nodeId: nodeIds[0]!,
      });
      const cjkGlyphs = [...CHINESE].filter((c) => c.codePointAt(0)! > 0x2e80).length;
      expect(used.filter((f) => f.isCustomFont)).toEqual([
        expect.objectContaining({ glyphCount: cjkGlyphs }),
      ]);
      await tab.close();
    },
  );
});
