import type { TrainCirculation, TrainCirculationNode } from '../circulation/train-circulation.js';
import { midnightOfServiceDay, serviceDayOf } from '../../shared/time/service-day.js';
import { clockTimeOfOffset } from '../timetables/timetable-time.js';
import { defaultTextMeasure, type TextMeasure } from './text-measure.js';

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
const BOX_HEIGHT = 78;
const GAP_X = 34;
const GAP_Y = 18;
const DAY_LABEL_WIDTH = 64;
const BOXES_PER_LINE = 5;
const HEADER_HEIGHT = 76;

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

const BOX_MIN_WIDTH = 180;
const BOX_MAX_WIDTH = 300;
const BOX_PADDING = 16;
/** Below this a text is not shrunk further (it still fits: boxes grow up to BOX_MAX_WIDTH). */
const MIN_TEXT_SIZE = 7;
const FOOTER = 'emutrack · 时刻取自各车次当日适用的时刻表 · 次日 = 跨过午夜';

interface BoxTexts {
  codes: string;
  stations: string;
  times?: string;
  deadhead: boolean;
  asked: boolean;
}

function boxTexts(
  node: TrainCirculationNode,
  midnight: number,
  asked: ReadonlySet<string>,
): BoxTexts {
  const deadhead = node.allCodes.length === 0;
  const codes = deadhead ? `${codesText(node)} 回送` : codesText(node);
  const stations =
    node.startStation || node.endStation
      ? `${node.startStation} → ${node.endStation}`
      : deadhead
        ? '空车调度'
        : '无时刻表';
  const texts: BoxTexts = {
    codes,
    stations,
    deadhead,
    asked: node.allCodes.some((c) => asked.has(`${c.prefix}${c.number}`)),
  };
  if (node.startAt > 0)
    texts.times = `${clock(node.startAt, midnight)} – ${clock(node.endAt, midnight)}`;
  return texts;
}

/**
 * Lays a circulation out. `askedCodes` are the numbers of the train the picture is for: its box
 * is highlighted. Every text is measured in the font it is drawn in (`measure`): a box is as
 * wide as its widest text needs (within limits, the same for all boxes), a text still too wide
 * is drawn smaller, and the title, subtitle and footer wrap onto more lines rather than run
 * past the picture's edge, however narrow the picture (a one-train circulation) is.
 */
export function layoutCirculation(
  circulation: TrainCirculation,
  askedCodes: readonly string[],
  measure: TextMeasure = defaultTextMeasure(),
): PictureLayout {
  const asked = new Set(askedCodes);
  const days = nodesByDay(circulation.nodes).map((group) => {
    const midnight = group.day === undefined ? 0 : midnightOfServiceDay(group.day);
    return { ...group, boxes: group.nodes.map((node) => boxTexts(node, midnight, asked)) };
  });
  const all = days.flatMap((d) => d.boxes);
  const needed = Math.max(
    0,
    ...all.map((b) =>
      Math.max(
        measure.width(b.codes, 18, 'bold'),
        measure.width(b.stations, 15, 'regular'),
        b.times ? measure.width(b.times, 14, 'regular') : 0,
      ),
    ),
  );
  const boxWidth = Math.ceil(
    Math.min(BOX_MAX_WIDTH, Math.max(BOX_MIN_WIDTH, needed + BOX_PADDING)),
  );
  const widest = Math.min(BOXES_PER_LINE, Math.max(1, ...days.map((d) => d.nodes.length)));
  const width = Math.ceil(MARGIN * 2 + DAY_LABEL_WIDTH + widest * boxWidth + (widest - 1) * GAP_X);
  const content = width - MARGIN * 2;
  const rects: PictureRect[] = [];
  const arrows: PictureArrow[] = [];
  const texts: PictureText[] = [];
  /** Lines of a text at the left margin, shrunk to `min` first and wrapped after; returns the next baseline. */
  const block = (
    text: string,
    top: number,
    size: number,
    min: number,
    weight: FontWeight,
    fill: string,
  ) => {
    const fitted = measure.fittedSize(text, content, size, min, weight);
    const lines = fitted !== undefined ? [text] : measure.wrap(text, content, min, weight);
    const at = fitted ?? min;
    let y = top;
    for (const line of lines) {
      y += at;
      texts.push({ x: MARGIN, y, size: at, weight, anchor: 'start', fill, text: line });
      y += at * 0.45;
    }
    return y;
  };
  const askedName = askedCodes[0] ?? '';
  const title = `${askedName} 交路图`;
  let y = block(title, MARGIN, 24, 16, 'bold', INK);
  const trainCount = circulation.nodes.length;
  y = block(
    `${subtitleOf(circulation)} · 共 ${trainCount} 个车次 · ${days.length} 天`,
    y + 2,
    13,
    11,
    'regular',
    MUTED,
  );
  y = Math.max(y + 16, MARGIN + HEADER_HEIGHT);

  const firstDay = days.find((g) => g.day !== undefined)?.day;
  const inner = boxWidth - BOX_PADDING;
  /** A line of a box, centred on `x` and shrunk from `preferred` to fit inside the box. */
  const boxLine = (
    x: number,
    y: number,
    text: string,
    preferred: number,
    weight: FontWeight,
    fill: string,
  ) => {
    const size = measure.fittedSize(text, inner, preferred, MIN_TEXT_SIZE, weight) ?? MIN_TEXT_SIZE;
    texts.push({ x, y, size, weight, anchor: 'middle', fill, text });
  };
  days.forEach((group, d) => {
    const dayNo = group.day !== undefined && firstDay !== undefined ? group.day - firstDay : d;
    const lines = Math.ceil(group.nodes.length / BOXES_PER_LINE);
    const label = `第${dayNo + 1}天`;
    texts.push({
      x: MARGIN,
      y: y + BOX_HEIGHT / 2 + 6,
      size: measure.fittedSize(label, DAY_LABEL_WIDTH - 6, 16, 9, 'bold') ?? 9,
      weight: 'bold',
      anchor: 'start',
      fill: MUTED,
      text: label,
    });
    group.boxes.forEach((box, i) => {
      const line = Math.floor(i / BOXES_PER_LINE);
      const col = i % BOXES_PER_LINE;
      const x = MARGIN + DAY_LABEL_WIDTH + col * (boxWidth + GAP_X);
      const top = y + line * (BOX_HEIGHT + GAP_Y);
      rects.push({
        x,
        y: top,
        width: boxWidth,
        height: BOX_HEIGHT,
        radius: 8,
        fill: box.asked ? ASKED_FILL : BOX_FILL,
        stroke: box.asked ? ASKED_STROKE : BOX_STROKE,
        strokeWidth: box.asked ? 2.5 : 1.2,
        dashed: box.deadhead,
      });
      if (col > 0) {
        arrows.push({ x1: x - GAP_X + 4, x2: x - 4, y: top + BOX_HEIGHT / 2, stroke: MUTED });
      }
      const cx = x + boxWidth / 2;
      boxLine(cx, top + 24, box.codes, 18, 'bold', box.deadhead ? MUTED : INK);
      boxLine(cx, top + 47, box.stations, 15, 'regular', INK);
      if (box.times) boxLine(cx, top + 68, box.times, 14, 'regular', MUTED);
    });
    y += lines * BOX_HEIGHT + (lines - 1) * GAP_Y + GAP_Y * 1.5;
  });
  const height = block(FOOTER, y, 11, 9, 'regular', MUTED) + MARGIN / 2;
  return { width, height: Math.ceil(height), title, rects, arrows, texts };
}
