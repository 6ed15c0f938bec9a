import { describe, expect, it } from 'vitest';
import type {
  TrainCirculation,
  TrainCirculationNode,
} from '../../src/domain/circulation/train-circulation.js';
import {
  layoutCirculation,
  type PictureLayout,
} from '../../src/domain/circulation-images/picture-layout.js';
import { TextMeasure } from '../../src/domain/circulation-images/text-measure.js';
import { midnightOfServiceDay, serviceDayFromYmd } from '../../src/shared/time/service-day.js';

const DAY = serviceDayFromYmd('20261201');
const STATIONS = ['上海虹桥', '乌鲁木齐南', '呼和浩特东', '南京南', '杭州东', '合肥南'];
const node = (
  code: string,
  day: number,
  dep: number,
  minutes: number,
  k: number,
): TrainCirculationNode => ({
  internalCode: '',
  allCodes: [{ prefix: code[0]!, number: Number(code.slice(1)) }],
  startStation: STATIONS[k % STATIONS.length]!,
  endStation: STATIONS[(k + 1) % STATIONS.length]!,
  startAt: midnightOfServiceDay(DAY + day) + dep * 60,
  endAt: midnightOfServiceDay(DAY + day) + (dep + minutes) * 60,
});

const measure = new TextMeasure();

/** Every text's extent, measured in the font, lies inside the picture (and inside its box). */
function expectNothingCutOff(layout: PictureLayout): void {
  for (const t of layout.texts) {
    const w = measure.width(t.text, t.size, t.weight);
    const left = t.anchor === 'middle' ? t.x - w / 2 : t.x;
    expect(left, t.text).toBeGreaterThanOrEqual(0);
    expect(left + w, t.text).toBeLessThanOrEqual(layout.width);
    expect(t.y, t.text).toBeLessThanOrEqual(layout.height);
    const box = layout.rects.find(
      (r) => t.x >= r.x && t.x <= r.x + r.width && t.y >= r.y && t.y <= r.y + r.height,
    );
    if (box) {
      expect(left, t.text).toBeGreaterThanOrEqual(box.x);
      expect(left + w, t.text).toBeLessThanOrEqual(box.x + box.width);
    }
  }
}

const FOOTER = 'emutrack · 时刻取自各车次当日适用的时刻表 · 次日 = 跨过午夜';
const dayLabels = (l: PictureLayout) => l.texts.filter((t) => /^第\d+天$/.test(t.text)).length;

describe('the picture: measured in its font, nothing cut off at any width', () => {
  it('a one-train circulation (the narrowest picture) wraps its subtitle and footer', () => {
    const c: TrainCirculation = {
      source: 'inferred',
      nodes: [node('G1', 0, 420, 120, 0)],
      metadata: { routeId: '0123456789abcdef0123', containsLoopBreak: true },
    };
    const layout = layoutCirculation(c, ['G1'], measure);
    expectNothingCutOff(layout);
    expect(dayLabels(layout)).toBe(1);
    // The footer is all there, over more than one line.
    const footer = layout.texts.filter((t) => t.size <= 11 && t.y > layout.rects[0]!.y + 78);
    expect(footer.length).toBeGreaterThan(1);
    expect(footer.map((t) => t.text).join(' ')).toBe(FOOTER);
  });

  it('a one-day circulation of five trains is one row of one day', () => {
    const c: TrainCirculation = {
      source: 'official',
      nodes: [404, 503, 605, 730, 839].map((dep, i) => node(`G730${i + 1}`, 0, dep, 80, i)),
      metadata: { validationState: 'raw_official', originalOfficialEntryKey: 'k' },
    };
    const layout = layoutCirculation(c, ['G7303'], measure);
    expectNothingCutOff(layout);
    expect(dayLabels(layout)).toBe(1);
    expect(new Set(layout.rects.map((r) => r.y)).size).toBe(1);
    expect(layout.texts.find((t) => t.text.includes('1 天'))).toBeDefined();
  });

  it('30 trains over 4 days: four days, at most five boxes a line, text no smaller than it must be', () => {
    const nodes = Array.from({ length: 30 }, (_, i) =>
      node(`C${5000 + i}`, Math.floor(i / 8), 360 + (i % 8) * 110, 95, i),
    );
    const c: TrainCirculation = { source: 'official', nodes };
    const layout = layoutCirculation(c, ['C5012'], measure);
    expectNothingCutOff(layout);
    expect(dayLabels(layout)).toBe(4);
    expect(layout.rects).toHaveLength(30);
    const perLine = new Map<number, number>();
    for (const r of layout.rects) perLine.set(r.y, (perLine.get(r.y) ?? 0) + 1);
    expect(Math.max(...perLine.values())).toBeLessThanOrEqual(5);
    // Box texts keep their sizes (nothing had to shrink): readable.
    const codes = layout.texts.filter((t) => /^C50\d\d$/.test(t.text));
    expect(codes.every((t) => t.size === 18)).toBe(true);
  });

  it('long names shrink or widen the boxes, never overflow them', () => {
    const c: TrainCirculation = {
      source: 'official',
      nodes: [
        {
          ...node('G4340', 0, 420, 300, 0),
          allCodes: [
            { prefix: 'G', number: 4340 },
            { prefix: 'G', number: 4337 },
            { prefix: 'G', number: 4338 },
          ],
        },
        {
          ...node('D1', 0, 800, 900, 1),
          startStation: '阿拉山口国际物流园区站',
          endStation: '霍尔果斯口岸综合保税区站',
        },
      ],
    };
    expectNothingCutOff(layoutCirculation(c, ['D1'], measure));
  });
});
