import { pinyin } from 'pinyin-pro';
import { parseEmuCode } from '../emus/normalize-emu-code.js';
import { expandTrainCodes } from '../trains/train-code.js';

/**
 * The lookup box's index (GET /api/v2/search): trains, EMUs and stations by what a person types.
 * Built once from the database's rows (search-entries.ts) and kept in memory; a query is a scan
 * over a few flat arrays of short keys (no I/O, no allocation per key), well under a millisecond
 * for a national network (4,500 units, 12,000 numbers, a few hundred stations).
 *
 * Matching (every key of an entry is tried; the entry counts at its best match):
 * - exact: the query is one of the entry's keys (after normalisation);
 * - prefix: a key starts with the query;
 * - contains: a key contains the query (queries of 2 characters or more).
 * Ranking: exact > prefix > contains; then the entry whose own code was typed (G7004 before
 * G7001/4); then the shorter matched key (closer to what was typed); then trains, EMUs,
 * stations; then the code. So `G7` lists G7 and G70..G79 before G700...
 *
 * Keys:
 * - a train: its number (G7001) and the other numbers of its paired run; a query written as a
 *   train number in any form (g7001, G7001/4, G7001/G7004, " G 7001 ") is expanded to its
 *   numbers, each of which is exact;
 * - an EMU: its canonical code (CR400AF-2001), the code without dashes (CR400AF2001), every
 *   alias it was seen written as, and its unit number (2001); the query is compared in the same
 *   compact form (upper case, no dashes or spaces), and its canonical parse too;
 * - a station: its name (杭州东), its full pinyin (hangzhoudong) and its initials (hzd), lower
 *   case without tones (pinyin-pro).
 */

export type SearchItemType = 'train' | 'emu' | 'station';
export type SearchMatch = 'exact' | 'prefix' | 'contains';

export interface SearchItem {
  type: SearchItemType;
  /** The canonical code: G7001, CR400AF-2001, 杭州东. */
  code: string;
  /** A short description: a train's route, a unit's model and depot, a station's bureau. */
  subtitle: string;
  /** A train's other numbers (paired run), a unit's tags; [] when none. */
  tags: string[];
  /** How the query matched. */
  match: SearchMatch;
}

export interface TrainEntry {
  code: string;
  allCodes: readonly string[];
  startStation: string;
  endStation: string;
}

export interface EmuEntry {
  code: string;
  model: string;
  trainSetNo: string;
  bureau: string;
  depot: string;
  tags: readonly string[];
  aliases: readonly string[];
}

export interface StationEntry {
  name: string;
  bureau: string;
}

export interface SearchEntries {
  trains: readonly TrainEntry[];
  emus: readonly EmuEntry[];
  stations: readonly StationEntry[];
}

/** Upper case, no dashes, spaces or underscores, full-width forms folded (ＣＲ４００ -> CR400). */
export function compactCode(text: string): string {
  return text
    .normalize('NFKC')
    .toUpperCase()
    .replace(/[\s_\-\u2010-\u2015]+/g, '');
}

/** The station keys: name, full pinyin and initials (both lower case, no tones, no spaces). */
export function stationKeys(name: string): string[] {
  const hanzi = /\p{Script=Han}/u.test(name);
  if (!hanzi) return [name.toLowerCase()];
  const full = pinyin(name, { toneType: 'none', type: 'array', nonZh: 'consecutive' });
  const initials = pinyin(name, {
    pattern: 'first',
    toneType: 'none',
    type: 'array',
    nonZh: 'consecutive',
  });
  return [name, full.join('').toLowerCase(), initials.join('').toLowerCase()];
}

const TYPE_ORDER: Record<SearchItemType, number> = { train: 0, emu: 1, station: 2 };
const MATCHES: readonly SearchMatch[] = ['exact', 'prefix', 'contains'];

interface Entry {
  type: SearchItemType;
  code: string;
  /** compactCode(code), to tell whether the entry's own code was typed. */
  compact: string;
  subtitle: string;
  tags: string[];
}

interface Hit {
  entry: number;
  match: number;
  keyLength: number;
}

/** Per-entry scratch of a search; `stamp[e] === generation` marks the entries it touched. */
interface Marks {
  generation: number;
  stamp: Uint32Array;
  matchOf: Uint8Array;
  keyLengthOf: Uint32Array;
  touched: Int32Array;
}

function newMarks(entries: number): Marks {
  return {
    generation: 0,
    stamp: new Uint32Array(entries),
    matchOf: new Uint8Array(entries),
    keyLengthOf: new Uint32Array(entries),
    touched: new Int32Array(entries),
  };
}

interface Ranked extends Hit {
  own: number;
  type: number;
  code: string;
}

/** The ranking: match, own code typed, shorter key, type, code. */
function compareRanked(a: Ranked, b: Ranked): number {
  return (
    a.match - b.match ||
    a.own - b.own ||
    a.keyLength - b.keyLength ||
    a.type - b.type ||
    compareText(a.code, b.code)
  );
}

/** Flat arrays: key i belongs to entry owner[i] and is compared as written in keys[i]. */
interface KeyTable {
  keys: string[];
  owner: number[];
}

function addKeys(table: KeyTable, entry: number, keys: readonly string[]): void {
  for (const key of new Set(keys)) {
    if (key === '') continue;
    table.keys.push(key);
    table.owner.push(entry);
  }
}

export class SearchIndex {
  private readonly entries: Entry[] = [];
  /** Train numbers and EMU codes, compact (compactCode). */
  private readonly codes: KeyTable = { keys: [], owner: [] };
  /** Station names and their pinyin (lower case). */
  private readonly stations: KeyTable = { keys: [], owner: [] };
  /** Exact lookup of compact codes (train numbers, EMU codes and aliases). */
  private readonly exactCodes = new Map<string, number[]>();
  /** Per-entry scratch of a search (made at the first search, reused by every one after). */
  private marks?: Marks;

  constructor(source: SearchEntries) {
    for (const train of source.trains) {
      const id = this.add({
        type: 'train',
        code: train.code,
        subtitle: route(train.startStation, train.endStation),
        tags: train.allCodes.filter((c) => c !== train.code),
      });
      this.addCodes(id, [train.code, ...train.allCodes]);
    }
    for (const emu of source.emus) {
      const depot = emu.depot || emu.bureau;
      const id = this.add({
        type: 'emu',
        code: emu.code,
        subtitle: [emu.model, depot].filter((s) => s !== '').join(' · '),
        tags: [...emu.tags],
      });
      this.addCodes(id, [emu.code, ...emu.aliases, emu.trainSetNo]);
    }
    for (const station of source.stations) {
      const id = this.add({
        type: 'station',
        code: station.name,
        subtitle: station.bureau,
        tags: [],
      });
      addKeys(this.stations, id, stationKeys(station.name));
    }
  }

  /** Entries indexed (trains + EMUs + stations). */
  get size(): number {
    return this.entries.length;
  }

  /** The best `limit` items for what was typed, best first. */
  search(query: string, limit: number): SearchItem[] {
    const typed = query.normalize('NFKC').trim();
    if (typed === '' || limit <= 0) return [];
    // The best match of each entry, in arrays kept between searches (a generation stamp says
    // which entries this search touched): no allocation per hit.
    const marks = (this.marks ??= newMarks(this.entries.length));
    if (++marks.generation === 0xffffffff) {
      marks.stamp.fill(0);
      marks.generation = 1;
    }
    const { stamp, matchOf, keyLengthOf, touched, generation } = marks;
    let count = 0;
    const consider = (entry: number, match: number, keyLength: number) => {
      if (stamp[entry] !== generation) {
        stamp[entry] = generation;
        matchOf[entry] = match;
        keyLengthOf[entry] = keyLength;
        touched[count++] = entry;
      } else if (
        match < matchOf[entry]! ||
        (match === matchOf[entry] && keyLength < keyLengthOf[entry]!)
      ) {
        matchOf[entry] = match;
        keyLengthOf[entry] = keyLength;
      }
    };
    // A train number in any written form: each of its numbers is an exact match.
    for (const code of trainCodesOf(typed)) {
      for (const id of this.exactCodes.get(code) ?? []) consider(id, 0, code.length);
    }
    // An EMU code in any written form: its canonical code is an exact match.
    const canonical = canonicalEmuCode(typed);
    if (canonical !== undefined) {
      for (const id of this.exactCodes.get(compactCode(canonical)) ?? []) {
        consider(id, 0, canonical.length);
      }
    }
    const compact = compactCode(typed);
    if (compact !== '') scan(this.codes, compact, consider);
    const lower = typed.toLowerCase().replace(/[\s']+/g, '');
    if (lower !== '') scan(this.stations, lower, consider);

    // Among equals, an entry whose own code was typed comes before one that matched another of
    // its keys (G7004 before G7001, whose paired run carries G7004).
    const typedCodes = new Set([compact, ...trainCodesOf(typed)]);
    if (canonical !== undefined) typedCodes.add(compactCode(canonical));
    // The best `limit` hits, kept sorted (a short list: a new hit is compared with the worst kept
    // first, so most of a long tail of prefix or contains hits costs one comparison).
    const top: Ranked[] = [];
    const probe: Ranked = { entry: 0, match: 0, keyLength: 0, own: 0, type: 0, code: '' };
    for (let t = 0; t < count; t++) {
      const id = touched[t]!;
      const entry = this.entries[id]!;
      probe.entry = id;
      probe.match = matchOf[id]!;
      probe.keyLength = keyLengthOf[id]!;
      probe.own = typedCodes.has(entry.compact) ? 0 : 1;
      probe.type = TYPE_ORDER[entry.type];
      probe.code = entry.code;
      if (top.length === limit && compareRanked(probe, top[limit - 1]!) >= 0) continue;
      let at = top.length === limit ? limit - 1 : top.length;
      while (at > 0 && compareRanked(probe, top[at - 1]!) < 0) {
        top[at] = top[at - 1]!;
        at--;
      }
      top[at] = { ...probe };
    }
    return top.map((hit) => {
      const entry = this.entries[hit.entry]!;
      return {
        type: entry.type,
        code: entry.code,
        subtitle: entry.subtitle,
        tags: [...entry.tags],
        match: MATCHES[hit.match]!,
      };
    });
  }

  private add(fields: Omit<Entry, 'compact'>): number {
    const entry: Entry = { ...fields, compact: compactCode(fields.code) };
    this.entries.push(entry);
    return this.entries.length - 1;
  }

  private addCodes(entry: number, codes: readonly string[]): void {
    const compacted = codes.map(compactCode);
    addKeys(this.codes, entry, compacted);
    for (const key of new Set(compacted)) {
      if (key === '') continue;
      const owners = this.exactCodes.get(key);
      if (owners) owners.push(entry);
      else this.exactCodes.set(key, [entry]);
    }
  }
}

/** Every key that equals, starts with or (queries of 2+ characters) contains the query. */
function scan(
  table: KeyTable,
  query: string,
  consider: (entry: number, match: number, keyLength: number) => void,
): void {
  const { keys, owner } = table;
  const contains = query.length >= 2;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (key.length < query.length) continue;
    if (key.startsWith(query)) consider(owner[i]!, key.length === query.length ? 0 : 1, key.length);
    else if (contains && key.includes(query)) consider(owner[i]!, 2, key.length);
  }
}

/** The numbers a query written as a train number stands for ([] when it is not one). */
function trainCodesOf(typed: string): string[] {
  try {
    return expandTrainCodes(typed.replace(/\s+/g, ''));
  } catch {
    return [];
  }
}

/** The canonical code of a query written as an EMU code, or undefined. */
function canonicalEmuCode(typed: string): string | undefined {
  if (!/[A-Za-z]/.test(typed) || !/\d{4}/.test(typed)) return undefined;
  try {
    return parseEmuCode(typed).code;
  } catch {
    return undefined;
  }
}

function route(start: string, end: string): string {
  if (start === '' && end === '') return '';
  return `${start} → ${end}`;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
