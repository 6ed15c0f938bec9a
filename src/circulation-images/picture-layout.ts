import type { TrainCirculation, TrainCirculationNode } from '../circulation/train-circulation.js';
import { midnightOfServiceDay, serviceDayOf } from '../time/service-day.js';
import { clockTimeOfOffset } from '../timetables/timetable-time.js';

/**
 * The picture of a circulation as plain shapes, in pixels (PNG) or points (PDF): one row per day
 * of the circulation, its trains left to right in running order, each a box with the train's
 * numbers, its stations and its times. Both renderers (SVG -> PNG, PDF) draw this one layout, so
 * the two formats always show the same thing.
 *
 * The picture holds only what the circulation says about its trains (no dates, no refresh
 * time, no inference window): the same circulation on another day, with the same timetables, is
 * the same picture, and its cached document is used again.
 */

export type FontWeight = 'regular' | 'bold';

export interface PictureText {
  x: number;
  /** The baseline. */
  y: number;
  size: number;
  weight: FontWeight;
  anchor: 'start' | 'middle';
  fill: string;
  text: string;
}

export interface PictureRect {
  x: number;
  y: number;
  width: number;
  height: number;
  radius: number;
  fill: string;
  stroke: string;
  strokeWidth: number;
  dashed: boolean;
}

export interface PictureArrow {
  x1: number;
  x2: number;
  y: number;
  stroke: string;
}

export interface PictureLayout {
  width: number;
  height: number;
  title: string;
  rects: PictureRect[];
  arrows: PictureArrow[];
  texts: PictureText[];
}

const MARGIN = 24;
const BOX_WIDTH = 212;
const BOX_HEIGHT = 78;
const GAP_X = 34;
const GAP_Y = 18;
const DAY_LABEL_WIDTH = 64;
const BOXES_PER_LINE = 5;
const HEADER_HEIGHT = 76;
const FOOTER_HEIGHT = 34;

const INK = '#1f2933';
const MUTED = '#52606d';
const BOX_FILL = '#f5f7fa';
const BOX_STROKE = '#7b8794';
const ASKED_FILL = '#fff3c4';
const ASKED_STROKE = '#c77700';

const VALIDATION_LABELS: Record<string, string> = {
  raw_official: '与推断交路一致',
  split_official: '与推断交路分段一致',
  unmatched_official: '与推断交路不符',
  unspecified: '尚未核对',
};

/** Rough advance of a text in ems: CJK and full-width forms 1, the rest about 0.6. */
function ems(text: string): number {
  let n = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    n += cp >= 0x2e80 ? 1 : ch === ' ' ? 0.3 : 0.6;
  }
  return n;
}

/** The preferred size, or a smaller one (not under 9) that fits `width`. */
function fittedSize(text: string, width: number, preferred: number): number {
  const size = Math.floor(width / Math.max(ems(text), 1));
  return Math.max(9, Math.min(preferred, size));
}

function codesText(node: TrainCirculationNode): string {
  if (node.allCodes.length === 0) return node.internalCode;
  return node.allCodes.map((c) => `${c.prefix}${c.number}`).join('/');
}

/** HH:MM of a time on its day; past that day's midnight, 次日HH:MM. */
function clock(at: number, midnight: number): string {
  const offset = at - midnight;
  return offset >= 86_400 ? `次日${clockTimeOfOffset(offset - 86_400)}` : clockTimeOfOffset(offset);
}

/** Nodes grouped by the service day they start on; nodes without times go with the one before. */
function nodesByDay(nodes: readonly TrainCirculationNode[]) {
  const days: { day: number | undefined; nodes: TrainCirculationNode[] }[] = [];
  for (const node of nodes) {
    const day = node.startAt > 0 ? serviceDayOf(node.startAt) : undefined;
    const last = days[days.length - 1];
    if (last && (day === undefined || last.day === undefined || last.day === day)) {
      last.nodes.push(node);
      last.day ??= day;
    } else {
      days.push({ day, nodes: [node] });
    }
  }
  return days;
}

function subtitleOf(circulation: TrainCirculation): string {
  const m = circulation.metadata ?? {};
  const parts: string[] = [];
  if (circulation.source === 'official') {
    parts.push('官方交路');
    if (m.validationState) parts.push(VALIDATION_LABELS[m.validationState] ?? m.validationState);
    if (m.splitSegmentIndex !== undefined && m.splitSegmentCount !== undefined)
      parts.push(`第 ${m.splitSegmentIndex + 1}/${m.splitSegmentCount} 段`);
  } else {
    parts.push('推断交路');
    if (m.routeId) parts.push(`路线 ${m.routeId}`);
    if (m.containsLoopBreak) parts.push('循环交路');
  }
  return parts.join(' · ');
}

/**
 * Lays a circulation out. `askedCodes` are the numbers of the train the picture is for: its box
 * is highlighted.
 */
export function layoutCirculation(
  circulation: TrainCirculation,
  askedCodes: readonly string[],
): PictureLayout {
  const asked = new Set(askedCodes);
  const days = nodesByDay(circulation.nodes);
  const widest = Math.min(BOXES_PER_LINE, Math.max(1, ...days.map((d) => d.nodes.length)));
  const width = MARGIN * 2 + DAY_LABEL_WIDTH + widest * BOX_WIDTH + (widest - 1) * GAP_X;
  const rects: PictureRect[] = [];
  const arrows: PictureArrow[] = [];
  const texts: PictureText[] = [];
  const askedName = askedCodes[0] ?? '';
  const title = `${askedName} 交路图`;
  texts.push({
    x: MARGIN,
    y: MARGIN + 24,
    size: 24,
    weight: 'bold',
    anchor: 'start',
    fill: INK,
    text: title,
  });
  const trainCount = circulation.nodes.length;
  texts.push({
    x: MARGIN,
    y: MARGIN + 48,
    size: 13,
    weight: 'regular',
    anchor: 'start',
    fill: MUTED,
    text: `${subtitleOf(circulation)} · 共 ${trainCount} 个车次 · ${days.length} 天`,
  });

  const firstDay = days.find((g) => g.day !== undefined)?.day;
  let y = MARGIN + HEADER_HEIGHT;
  days.forEach((group, d) => {
    const dayNo = group.day !== undefined && firstDay !== undefined ? group.day - firstDay : d;
    const lines = Math.ceil(group.nodes.length / BOXES_PER_LINE);
    texts.push({
      x: MARGIN,
      y: y + BOX_HEIGHT / 2 + 6,
      size: 16,
      weight: 'bold',
      anchor: 'start',
      fill: MUTED,
      text: `第${dayNo + 1}天`,
    });
    const midnight = group.day === undefined ? 0 : midnightOfServiceDay(group.day);
    group.nodes.forEach((node, i) => {
      const line = Math.floor(i / BOXES_PER_LINE);
      const col = i % BOXES_PER_LINE;
      const x = MARGIN + DAY_LABEL_WIDTH + col * (BOX_WIDTH + GAP_X);
      const top = y + line * (BOX_HEIGHT + GAP_Y);
      const isAsked = node.allCodes.some((c) => asked.has(`${c.prefix}${c.number}`));
      const deadhead = node.allCodes.length === 0;
      rects.push({
        x,
        y: top,
        width: BOX_WIDTH,
        height: BOX_HEIGHT,
        radius: 8,
        fill: isAsked ? ASKED_FILL : BOX_FILL,
        stroke: isAsked ? ASKED_STROKE : BOX_STROKE,
        strokeWidth: isAsked ? 2.5 : 1.2,
        dashed: deadhead,
      });
      if (col > 0) {
        arrows.push({ x1: x - GAP_X + 4, x2: x - 4, y: top + BOX_HEIGHT / 2, stroke: MUTED });
      }
      const cx = x + BOX_WIDTH / 2;
      const inner = BOX_WIDTH - 16;
      const codes = deadhead ? `${codesText(node)} 回送` : codesText(node);
      texts.push({
        x: cx,
        y: top + 24,
        size: fittedSize(codes, inner, 18),
        weight: 'bold',
        anchor: 'middle',
        fill: deadhead ? MUTED : INK,
        text: codes,
      });
      const stations =
        node.startStation || node.endStation
          ? `${node.startStation} → ${node.endStation}`
          : deadhead
            ? '空车调度'
            : '无时刻表';
      texts.push({
        x: cx,
        y: top + 47,
        size: fittedSize(stations, inner, 15),
        weight: 'regular',
        anchor: 'middle',
        fill: INK,
        text: stations,
      });
      if (node.startAt > 0) {
        const times = `${clock(node.startAt, midnight)} – ${clock(node.endAt, midnight)}`;
        texts.push({
          x: cx,
          y: top + 68,
          size: fittedSize(times, inner, 14),
          weight: 'regular',
          anchor: 'middle',
          fill: MUTED,
          text: times,
        });
      }
    });
    y += lines * BOX_HEIGHT + (lines - 1) * GAP_Y + GAP_Y * 1.5;
  });
  const height = y + FOOTER_HEIGHT;
  texts.push({
    x: MARGIN,
    y: height - MARGIN / 2 - 2,
    size: 11,
    weight: 'regular',
    anchor: 'start',
    fill: MUTED,
    text: 'emutrack · 时刻取自各车次当日适用的时刻表 · 次日 = 跨过午夜',
  });
  return { width, height: Math.ceil(height), title, rects, arrows, texts };
}
