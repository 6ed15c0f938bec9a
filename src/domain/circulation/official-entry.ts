import { createHash } from 'node:crypto';
import { z } from 'zod';
import { InvalidServiceDateError, serviceDayFromYmd } from '../../shared/time/service-day.js';
import { expandTrainCodes, MalformedTrainCodeError } from '../trains/train-code.js';
import { isEmuPrefix, TRAIN_PREFIXES } from '../trains/train-prefixes.js';
import { EmutrackError } from '../../shared/errors/emutrack-error.js';

/**
 * One entry of an official circulation table in the community format (compatibility.md):
 *
 *   {"running_start": "20260701", "running_end": "20991231", "emu_note": "CR400AF",
 *    "administrator": "上海局 上海动车段", "train_no_total": "G7001#G7002#0D6911#G4340/37"}
 *
 * running_start / running_end are YYYYMMDD (string or number; 20991231 = open-ended);
 * train_no_total lists the trains in running order separated by '#'; G4340/37 is one run
 * carrying two numbers; a leading 0 (0D6911) marks a deadhead: an empty-stock move of the same
 * unit, kept in order but never seen by passengers, so never matched against sightings.
 */
export interface OfficialTrain {
  written: string;
  /** The numbers of the run, in running order (a deadhead's without its leading 0). */
  codes: string[];
  /** codes joined by '/' (a deadhead's with a leading 0): the inference's node key. */
  nodeKey: string;
  deadhead: boolean;
}

export interface OfficialEntry {
  /** Hash of the normalised content: the same table is the same entry, whatever file it came in. */
  entryKey: string;
  runningStart: number;
  /** Service day; undefined = open-ended. */
  runningEnd?: number;
  emuNote: string;
  administrator: string;
  /** As written, spaces removed, upper case. */
  trainNoTotal: string;
  trains: OfficialTrain[];
  /** Set when the table is not an EMU circulation; it is kept but never checked. */
  skipReason?: string;
}

/** An entry that cannot be read; names the field. */
export class MalformedOfficialEntryError extends EmutrackError {
  constructor(
    readonly field: string | null,
    reason: string,
  ) {
    super('official_entry_malformed', field ? `${field}: ${reason}` : reason);
  }
}

const OPEN_END = '20991231';
/** The EMU prefixes (G, D, C, S, DJ: train-prefixes.ts), for messages; the others are locomotive-hauled. */
const EMU_PREFIX_LIST = TRAIN_PREFIXES.filter((p) => p.emu)
  .map((p) => p.prefix)
  .join(', ');
/** Coach types of locomotive-hauled stock (25G, 25T, 25DT, 19K, 22B), as whole tokens. */
const COACH_TYPE = /(?<![0-9A-Z])(25[A-Z]{1,2}|19[KT]|22B?)(?![0-9A-Z])/i;

const ymdField = z.union([z.string(), z.number().int()]).transform((v) => String(v).trim());

const entrySchema = z.object({
  running_start: ymdField,
  running_end: ymdField,
  emu_note: z.string().optional().default(''),
  administrator: z.string().optional().default(''),
  train_no_total: z.string(),
});

function serviceDay(field: string, ymd: string): number {
  try {
    return serviceDayFromYmd(ymd);
  } catch (err) {
    if (err instanceof InvalidServiceDateError)
      throw new MalformedOfficialEntryError(field, err.message);
    throw err;
  }
}

function parseTrain(item: string, index: number): OfficialTrain {
  const deadhead = item.startsWith('0');
  let codes: string[];
  try {
    codes = expandTrainCodes(deadhead ? item.slice(1) : item);
  } catch (err) {
    if (err instanceof MalformedTrainCodeError)
      throw new MalformedOfficialEntryError(
        'train_no_total',
        `train ${index + 1} ${JSON.stringify(item)}: ${err.message}`,
      );
    throw err;
  }
  const key = codes.join('/');
  return { written: item, codes, nodeKey: deadhead ? `0${key}` : key, deadhead };
}

function skipReasonOf(trains: readonly OfficialTrain[], emuNote: string): string | undefined {
  for (const t of trains) {
    for (const code of t.codes) {
      const prefix = /^[A-Z]*/.exec(code)![0];
      if (!isEmuPrefix(prefix))
        return `not an EMU circulation: locomotive-hauled train ${t.written} (only ${EMU_PREFIX_LIST} numbers are EMU services)`;
    }
  }
  const coach = COACH_TYPE.exec(emuNote);
  if (coach)
    return `not an EMU circulation: emu_note names the locomotive-hauled coach type ${coach[1]!.toUpperCase()}`;
  return undefined;
}

/** Validates and normalises one parsed entry; throws MalformedOfficialEntryError naming the field. */
export function parseOfficialEntry(value: unknown): OfficialEntry {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new MalformedOfficialEntryError(null, 'expected a JSON object');
  const parsed = entrySchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.length > 0 ? String(issue.path[0]) : null;
    const missing = field !== null && !(field in (value as Record<string, unknown>));
    throw new MalformedOfficialEntryError(field, missing ? 'missing' : issue.message);
  }
  const e = parsed.data;
  const runningStart = serviceDay('running_start', e.running_start);
  const openEnded = e.running_end === OPEN_END;
  const runningEnd = openEnded ? undefined : serviceDay('running_end', e.running_end);
  if (runningEnd !== undefined && runningEnd < runningStart)
    throw new MalformedOfficialEntryError(
      'running_end',
      `${e.running_end} is before running_start ${e.running_start}`,
    );
  // NFKC before the table's own marks are read: a full-width ＃ separates trains and a
  // full-width ０ marks a deadhead, as their ASCII forms do (the numbers' rules apply it too).
  const total = e.train_no_total.normalize('NFKC').replace(/\s+/g, '').toUpperCase();
  const items = total.split('#');
  // A '#' at either end is a common slip; an empty place between two trains is not.
  while (items.length > 0 && items[0] === '') items.shift();
  while (items.length > 0 && items[items.length - 1] === '') items.pop();
  if (items.length === 0) throw new MalformedOfficialEntryError('train_no_total', 'no trains');
  const empty = items.indexOf('');
  if (empty >= 0)
    throw new MalformedOfficialEntryError(
      'train_no_total',
      `train ${empty + 1} is empty (two '#' in a row)`,
    );
  const trains = items.map(parseTrain);
  if (trains.every((t) => t.deadhead))
    throw new MalformedOfficialEntryError('train_no_total', 'only deadheads, no passenger train');
  const emuNote = e.emu_note.trim();
  const administrator = e.administrator.trim();
  const normalised = items.join('#');
  const entryKey = createHash('sha256')
    .update(
      JSON.stringify([
        e.running_start,
        openEnded ? OPEN_END : e.running_end,
        emuNote,
        administrator,
        normalised,
      ]),
    )
    .digest('hex')
    .slice(0, 32);
  const entry: OfficialEntry = {
    entryKey,
    runningStart,
    emuNote,
    administrator,
    trainNoTotal: normalised,
    trains,
  };
  if (runningEnd !== undefined) entry.runningEnd = runningEnd;
  const skip = skipReasonOf(trains, emuNote);
  if (skip) {
    entry.skipReason = skip;
    entry.trains = [];
  }
  return entry;
}
