import { hash } from 'node:crypto';
import { copyTextValue } from '../../shared/db/db.js';
import { serviceDayFromYmd } from '../../shared/time/service-day.js';
import type { EmuFormPolicy } from '../emus/emu-forms.js';
import { addObservationValue, type ObservationValue } from '../ingest/ingest-values.js';
import { hexWord } from '../ingest/dedup-key-set.js';
import { FLAG_NONE, POSITION_NONE } from '../ingest/ndjson-line-scan.js';
import type { ChunkBuilder, KnownRow } from '../ingest/observation-copy-rows.js';
import {
  checkEmu,
  checkTrain,
  EARLIEST,
  LATEST,
  MAX_SOURCE,
} from '../ingest/observation-record.js';
import { trainPrefix } from '../trains/train-prefixes.js';
import type { Source } from './source-store.js';
import type { V2Page } from './v2-page.js';
import { NOON, v2RecordObservation, type SightingDay } from './v2-record-observation.js';

const encoder = new TextEncoder();
/** FORMATION_POSITIONS' index + 1 of `first` and `second` (KnownRow.position). */
const FIRST = 2;
const SECOND = 3;

/** One record of a page as an observation value (the general path: ingest-values.ts). */
function observationOf(source: Source, d: SightingDay, page: V2Page, index: number) {
  const r = page.items[index]!;
  return v2RecordObservation(
    source,
    d,
    {
      id: r.id,
      serviceDay: r.serviceDay,
      status: r.status,
      trainCode: r.trainCode && `${r.trainCode.prefix}${r.trainCode.number}`,
      emuCode: page.emuCodeMappings?.[String(r.emuId)],
      emuMissing: `emuCode: no emuCodeMappings entry for emuId ${r.emuId}`,
      startOffset:
        r.timetableId !== undefined
          ? page.timetableMappings?.[String(r.timetableId)]?.startOffset
          : undefined,
    },
    // Kept only with a refused record: most are taken, and 12,000 texts a day are no small cost.
    () => JSON.stringify(r),
    index,
  );
}

interface KnownEmu {
  unit: string;
  /** `emu_code<TAB>source<TAB>` (KnownRow.emuSource). */
  emuSource: Uint8Array;
}

/**
 * A v2 source's pages as COPY rows of observations. A record goes the lean way when what varies
 * in it (its train and unit, each checked once per distinct value by the validator's own
 * checkTrain and checkEmu, and its time) is what toObservationRecord would accept as it is:
 * then its row's parts are written straight from the page (no observation value, record or
 * strings per record; its dedup key, sha256 of `ref\0<source>\0<id>` as dedupKeyOf makes it,
 * from bytes). Any other record (refused, or anything the validator would trim or question)
 * takes the general path of every input (v2RecordObservation, then addObservationValue), so a
 * row, a refusal and its reason are what they always were. One per pull: its checks hold
 * for the pull's EMU form policy.
 */
export class V2PageRows {
  private readonly prefixes = new Map<string, { bytes: Uint8Array; max: number } | null>();
  private readonly emus = new Map<string, KnownEmu | null>();
  /** Whether the source's name is what toObservationRecord keeps as it is. */
  private readonly sourceKept: boolean;
  /** `ref\0<source>\0`: what the dedup key hashes, before the record's id. */
  private readonly material: string;
  // Its fields start as the kinds they hold (a time is past a small integer's range), so that
  // the first row does not change the object's shape under code already optimized for it.
  private readonly row: KnownRow = {
    line: 0,
    observedAt: 2 ** 40,
    serviceDay: 0,
    serviceDateGiven: true,
    trainPrefix: new Uint8Array(0),
    trainNumber: 0,
    emuUnit: '',
    emuSource: new Uint8Array(0),
    ref: 0,
    key: new Int32Array(8),
    position: POSITION_NONE,
    fault: FLAG_NONE,
    spare: FLAG_NONE,
  };
  private readonly dayKept = new Map<number, boolean>();

  constructor(
    private readonly source: Source,
    private readonly emuForms: EmuFormPolicy,
    /** false: every record takes the general path (what the lean one must equal, row for row). */
    lean = true,
  ) {
    const name = source.name;
    this.sourceKept = lean && name !== '' && name === name.trim() && name.length <= MAX_SOURCE;
    this.material = `ref\u0000${name}\u0000`;
  }

  /** The day's records state its date (d.ymd): kept as it is when it reads back as the day. */
  private dayIsKept(d: SightingDay): boolean {
    let kept = this.dayKept.get(d.day);
    if (kept === undefined) {
      try {
        kept = serviceDayFromYmd(d.ymd) === d.day;
      } catch {
        kept = false;
      }
      this.dayKept.set(d.day, kept);
    }
    return kept;
  }

  /**
   * The prefix's bytes when `prefix` + a number in `max` is one train number as the validator
   * writes it (checkTrain of the prefix's first number gives back that number alone); null: the
   * general path.
   */
  private trainPrefix(prefix: string): { bytes: Uint8Array; max: number } | null {
    let hit = this.prefixes.get(prefix);
    if (hit === undefined) {
      const entry = trainPrefix(prefix);
      const codes = checkTrain(`${prefix}1`);
      hit =
        entry !== undefined &&
        Array.isArray(codes) &&
        codes.length === 1 &&
        codes[0] === `${prefix}1`
          ? { bytes: encoder.encode(prefix), max: Math.min(entry.maxNumber, 99_999) }
          : null;
      this.prefixes.set(prefix, hit);
    }
    return hit;
  }

  private emu(code: string): KnownEmu | null {
    let hit = this.emus.get(code);
    if (hit === undefined) {
      const parsed =
        code !== '' && code === code.trim() ? checkEmu(code, this.emuForms) : undefined;
      hit =
        parsed === undefined || 'reason' in parsed
          ? null
          : {
              unit: parsed.unit,
              emuSource: encoder.encode(
                `${copyTextValue(code)}\t${copyTextValue(this.source.name)}\t`,
              ),
            };
      this.emus.set(code, hit);
    }
    return hit;
  }

  /** Record `index` of the page as a lean row, if it can be one; false: it was not added. */
  private addKnown(builder: ChunkBuilder, d: SightingDay, page: V2Page, index: number): boolean {
    const r = page.items[index]!;
    if (r.serviceDay !== d.day || r.trainCode === undefined) return false;
    const code = page.emuCodeMappings?.[r.emuId];
    if (code === undefined) return false;
    const emu = this.emu(code);
    if (emu === null) return false;
    const train = this.trainPrefix(r.trainCode.prefix);
    const n = r.trainCode.number;
    if (train === null || !(n >= 1 && n <= train.max)) return false;
    const start =
      r.timetableId !== undefined
        ? page.timetableMappings?.[r.timetableId]?.startOffset
        : undefined;
    const observedAt =
      d.midnight + (start !== undefined && start >= 0 && start < 2 * 86_400 ? start : NOON);
    if (!Number.isSafeInteger(observedAt) || observedAt < EARLIEST || observedAt >= LATEST)
      return false;
    const row = this.row;
    row.line = r.id <= 0x7fffffff ? r.id : index + 1;
    row.observedAt = observedAt;
    row.serviceDay = d.day;
    row.trainPrefix = train.bytes;
    row.trainNumber = n;
    row.emuUnit = emu.unit;
    row.emuSource = emu.emuSource;
    row.ref = r.id;
    // dedupKeyOf of a sighting with a ref: the day (as its first word), then sha256's.
    // (Hex from a string is the cheapest of node's sha256 calls: no Buffer per record.)
    const digest = hash('sha256', this.material + r.id, 'hex');
    row.key[0] = d.day;
    for (let k = 1; k < 8; k++) row.key[k] = hexWord(digest, (k - 1) * 8);
    const formation = r.status & 0x06;
    row.position = formation === 0x04 ? FIRST : formation === 0x06 ? SECOND : POSITION_NONE;
    row.fault = r.status & 0x08 ? 1 : FLAG_NONE;
    row.spare = r.status & 0x10 ? 1 : FLAG_NONE;
    builder.read++;
    builder.addKnown(row);
    return true;
  }

  /** Every record of a page of day `d` into the chunk, as rows or as refusals. */
  addPage(builder: ChunkBuilder, d: SightingDay, page: V2Page): void {
    const lean = this.sourceKept && this.dayIsKept(d);
    for (let i = 0; i < page.items.length; i++) {
      if (lean && this.addKnown(builder, d, page, i)) continue;
      const v: ObservationValue = observationOf(this.source, d, page, i);
      addObservationValue(builder, v, this.emuForms);
    }
  }
}
