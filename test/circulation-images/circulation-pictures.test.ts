import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { renderAsync } from '@resvg/resvg-js';
import type { TrainCirculation } from '../../src/domain/circulation/train-circulation.js';
import {
  CirculationPictures,
  PictureRenderError,
} from '../../src/domain/circulation-images/circulation-pictures.js';
import { cjkFontFiles, CJK_FONT_FAMILY } from '../../src/domain/circulation-images/cjk-font.js';
import {
  layoutCirculation,
  type PictureLayout,
} from '../../src/domain/circulation-images/picture-layout.js';
import { renderPdf, renderPng } from '../../src/domain/circulation-images/render-picture.js';
import { pictureSvg } from '../../src/domain/circulation-images/render-svg.js';
import { midnightOfServiceDay, serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { useTestDatabase } from '../helpers/test-db.js';

const DAY = serviceDayFromYmd('20260915');
const MIDNIGHT = midnightOfServiceDay(DAY);
const at = (hours: number, minutes = 0) => MIDNIGHT + hours * 3600 + minutes * 60;

const node = (code: string, from: string, to: string, start: number, end: number) => ({
  internalCode: '',
  allCodes: [{ prefix: code[0]!, number: Number(code.slice(1)) }],
  startStation: from,
  endStation: to,
  startAt: start,
  endAt: end,
});

/** Two days: G11, G12 the day before; G13, a deadhead and the overnight D3125 on the day. */
const CIRCULATION: TrainCirculation = {
  source: 'official',
  nodes: [
    node('G11', '上海虹桥', '南京南', at(-17), at(-15, -30)),
    node('G12', '南京南', '上海虹桥', at(-15), at(-13, -30)),
    node('G13', '上海虹桥', '杭州东', at(7), at(8)),
    { ...node('G1', '', '', 0, 0), internalCode: '0D6911', allCodes: [] },
    node('D3125', '杭州东', '乌鲁木齐南', at(21, 40), at(25, 10)),
  ],
  refreshAt: at(26),
  metadata: { validationState: 'raw_official', originalOfficialEntryKey: 'abc' },
};

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe('layoutCirculation', () => {
  it('one row per day, a box per train in order, the asked train highlighted, no dates', () => {
    const layout = layoutCirculation(CIRCULATION, ['G13']);
    const texts = layout.texts.map((t) => t.text);
    expect(texts.filter((t) => /^第\d天$/.test(t))).toEqual(['第1天', '第2天']);
    expect(layout.rects).toHaveLength(5);
    expect(texts).toEqual(
      expect.arrayContaining([
        'G13 交路图',
        'G11',
        '上海虹桥 → 南京南',
        '07:00 – 08:30',
        '0D6911 回送',
        '21:40 – 次日01:10',
      ]),
    );
    const highlighted = layout.rects.filter((r) => r.strokeWidth > 2);
    expect(highlighted).toHaveLength(1);
    expect(highlighted[0]!.y).toBe(layout.rects[2]!.y);
    expect(layout.rects[3]!.dashed).toBe(true);
    // Arrows join the trains of a day, not the last of one day to the first of the next.
    expect(layout.arrows).toHaveLength(3);
    // refreshAt and dates are not drawn: another day with the same trains is the same picture.
    const shifted: TrainCirculation = {
      ...CIRCULATION,
      refreshAt: at(50),
      nodes: CIRCULATION.nodes.map((n) =>
        n.startAt === 0 ? n : { ...n, startAt: n.startAt + 86_400, endAt: n.endAt + 86_400 },
      ),
    };
    expect(layoutCirculation(shifted, ['G13'])).toEqual(layout);
  });
});

describe('rendering', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-picture-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  /** RGBA pixels of one character drawn alone at 40 px. */
  async function glyphPixels(ch: string): Promise<Buffer> {
    const layout: PictureLayout = {
      width: 60,
      height: 60,
      title: ch,
      rects: [],
      arrows: [],
      texts: [
        { x: 10, y: 45, size: 40, weight: 'regular', anchor: 'start', fill: '#000000', text: ch },
      ],
    };
    const fonts = cjkFontFiles();
    const image = await renderAsync(pictureSvg(layout), {
      font: {
        fontFiles: [fonts.regular],
        loadSystemFonts: false,
        defaultFontFamily: CJK_FONT_FAMILY,
      },
      background: '#ffffff',
    });
    return image.pixels;
  }

  const ink = (pixels: Buffer) => {
    let n = 0;
    for (let i = 0; i < pixels.length; i += 4) if (pixels[i]! < 128) n++;
    return n;
  };

  it('draws Chinese characters as their own glyphs (not missing-glyph boxes) from the shipped font', async () => {
    const [shang, hai, qiao] = await Promise.all(['上', '海', '桥'].map(glyphPixels));
    for (const p of [shang!, hai!, qiao!]) expect(ink(p)).toBeGreaterThan(60);
    // A font without these characters draws the same box for each of them.
    expect(shang!.equals(hai!)).toBe(false);
    expect(hai!.equals(qiao!)).toBe(false);
  });

  it('PNG: a picture of the circulation, written out to look at', async () => {
    const png = await renderPng(layoutCirculation(CIRCULATION, ['G13']));
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    // IHDR: twice the layout's size.
    const layout = layoutCirculation(CIRCULATION, ['G13']);
    expect(png.readUInt32BE(16)).toBe(layout.width * 2);
    expect(png.readUInt32BE(20)).toBe(layout.height * 2);
    const file = path.join(dir, 'circulation.png');
    await writeFile(file, png);
    await writeFile('/tmp/circulation-sample.png', png);
  });

  it('PDF: one page, the font embedded as a subset with its text mapping, the same bytes every time', async () => {
    const layout = layoutCirculation(CIRCULATION, ['G13']);
    const pdf = await renderPdf(layout);
    const text = pdf.toString('latin1');
    expect(text.startsWith('%PDF-')).toBe(true);
    expect(text.match(/\/Type \/Page\b/g)).toHaveLength(1);
    expect(text).toMatch(/\/BaseFont \/[A-Z]{6}\+NotoSansSC-Regular/);
    expect(text).toMatch(/\/BaseFont \/[A-Z]{6}\+NotoSansSC-Bold/);
    expect(text).toContain('/FontFile2');
    expect(text).toContain('/ToUnicode');
    // A subset, not the 10 MB font.
    expect(pdf.length).toBeLessThan(200_000);
    expect((await renderPdf(layout)).equals(pdf)).toBe(true);
    await writeFile(path.join(dir, 'circulation.pdf'), pdf);
  });
});

describe('CirculationPictures: cached by what they show', () => {
  const t = useTestDatabase();
  beforeEach(() => t.current.db.query('TRUNCATE circulation_images'));

  it('draws once, then finds the document; another picture or format is another document', async () => {
    let drawn = 0;
    const pictures = new CirculationPictures(t.current.db, async (layout, format) => {
      drawn++;
      return Buffer.from(`${format}:${layout.title}:${layout.rects.length}`);
    });
    const first = await pictures.prepare(CIRCULATION, ['G13'], 'png');
    expect(first.cached).toBeUndefined();
    const document = await pictures.render(first);
    expect(document.documentId).toBe(createHash('sha256').update('png:G13 交路图:5').digest('hex'));
    expect(document.contentType).toBe('image/png');
    const again = await pictures.prepare(CIRCULATION, ['G13'], 'png');
    expect(again.cached).toEqual(document);
    expect(drawn).toBe(1);
    expect(await pictures.read(document.documentId, 'png')).toEqual(document);
    expect(await pictures.read(document.documentId, 'pdf')).toBeUndefined();

    expect((await pictures.prepare(CIRCULATION, ['G13'], 'pdf')).cached).toBeUndefined();
    expect((await pictures.prepare(CIRCULATION, ['G11'], 'png')).cached).toBeUndefined();
  });

  it('a failed drawing is a PictureRenderError and stores nothing', async () => {
    const pictures = new CirculationPictures(t.current.db, async () => {
      throw new Error('out of memory');
    });
    const prepared = await pictures.prepare(CIRCULATION, ['G13'], 'png');
    await expect(pictures.render(prepared)).rejects.toThrow(PictureRenderError);
    await expect(pictures.render(prepared)).rejects.toThrow(/out of memory/);
    const r = await t.current.db.query('SELECT count(*)::int AS n FROM circulation_images');
    expect(r.rows[0]).toEqual({ n: 0 });
  });
});
