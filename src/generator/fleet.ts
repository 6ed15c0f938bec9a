import { stringify } from 'csv-stringify/sync';
import { BUREAUS, type Bureau, type Depot } from './bureaus.js';
import type { Rng } from './rng.js';

/** An EMU model with variant (CR400BF-A), as parseEmuCode reports it, and how it is numbered. */
export interface EmuModel {
  model: string;
  firstNumber: number;
  /** Share of the national fleet. */
  weight: number;
  designMaxSpeed: number;
  operatingMaxSpeed: number;
  cars: 8 | 16 | 17;
  /** 'north': cold-resistant units kept by northern bureaus; 'south': CRH1 family. */
  region: 'any' | 'north' | 'south';
}

function m(
  model: string,
  firstNumber: number,
  weight: number,
  speeds: readonly [design: number, operating: number],
  cars: 8 | 16 | 17,
  region: EmuModel['region'] = 'any',
): EmuModel {
  return {
    model,
    firstNumber,
    weight,
    designMaxSpeed: speeds[0],
    operatingMaxSpeed: speeds[1],
    cars,
    region,
  };
}

const FUXING_350 = [400, 350] as const;
const HEXIE_380 = [380, 300] as const;

export const EMU_MODELS: readonly EmuModel[] = [
  m('CR400AF', 2001, 10, FUXING_350, 8),
  m('CR400AF-A', 2501, 3, FUXING_350, 16),
  m('CR400AF-B', 2701, 2, FUXING_350, 17),
  m('CR400AF-Z', 201, 3, FUXING_350, 8),
  m('CR400AF-AZ', 501, 1, FUXING_350, 16),
  m('CR400AF-BZ', 2201, 1, FUXING_350, 17),
  m('CR400BF', 5001, 9, FUXING_350, 8),
  m('CR400BF-A', 5101, 3, FUXING_350, 16),
  m('CR400BF-B', 5501, 2, FUXING_350, 17),
  m('CR400BF-Z', 401, 3, FUXING_350, 8),
  m('CR400BF-G', 5701, 1.5, FUXING_350, 8, 'north'),
  m('CR400BF-GZ', 901, 0.5, FUXING_350, 8, 'north'),
  m('CR400BF-C', 5801, 0.5, FUXING_350, 8, 'north'),
  m('CR300AF', 3001, 3, [300, 250], 8),
  m('CR300BF', 5301, 3, [300, 250], 8),
  m('CRH380A', 2601, 6, HEXIE_380, 8),
  m('CRH380AL', 2541, 3, HEXIE_380, 16),
  m('CRH380B', 3601, 4, HEXIE_380, 8),
  m('CRH380BL', 3501, 3, HEXIE_380, 16),
  m('CRH380BG', 5601, 1.5, HEXIE_380, 8, 'north'),
  m('CRH380CL', 5651, 1, HEXIE_380, 16),
  m('CRH380D', 1501, 1.5, HEXIE_380, 8),
  m('CRH2A', 2001, 8, [250, 250], 8),
  m('CRH2C', 2061, 2, [350, 300], 8),
  m('CRH2E', 2461, 1, [250, 250], 16),
  m('CRH3C', 3001, 2, [350, 300], 8, 'north'),
  m('CRH5A', 5001, 6, [250, 250], 8, 'north'),
  m('CRH5G', 5201, 2, [250, 250], 8, 'north'),
  m('CRH1A', 1001, 3, [250, 200], 8, 'south'),
  m('CRH1A-A', 1181, 1, [250, 250], 8, 'south'),
  m('CRH1B', 1046, 0.7, [250, 250], 16, 'south'),
  m('CRH1E', 1229, 0.5, [250, 250], 16, 'south'),
  m('CRH6A', 401, 2, [200, 200], 8),
  m('CRH6F', 451, 1, [160, 160], 8),
];

export interface EmuUnit {
  /** Position in the fleet (fleet.csv order). */
  index: number;
  code: string;
  model: EmuModel;
  bureau: Bureau;
  /** Set when the unit is given to a circulation (or as a spare) by the network builder. */
  depot: Depot;
}

/** Only 8-car units couple into 16-car formations. */
export function isCoupleable(model: EmuModel): boolean {
  return model.cars === 8;
}

/** Splits total in proportion to weights, exactly (largest remainder). */
export function apportion(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  const exact = weights.map((w) => (total * w) / sum);
  const counts = exact.map(Math.floor);
  let left = total - counts.reduce((a, b) => a + b, 0);
  const order = exact.map((x, i) => [x - Math.floor(x), i] as const).sort((a, b) => b[0] - a[0]);
  for (const [, i] of order) {
    if (left-- <= 0) break;
    counts[i]!++;
  }
  return counts;
}

function eligible(model: EmuModel, bureau: Bureau): boolean {
  if (model.region === 'north') return bureau.north;
  if (model.region === 'south') return !bureau.north;
  return true;
}

/**
 * A fleet of `size` units. Bureaus get shares of the fleet, each unit a model drawn by weight
 * among those the bureau keeps; numbers run on per model in bureau order, so each bureau holds
 * blocks of consecutive numbers (with the odd gap), as in the real fleet.
 */
export function buildFleet(rng: Rng, size: number): EmuUnit[] {
  const perBureau = apportion(
    size,
    BUREAUS.map((b) => b.fleetWeight),
  );
  const drawn: { bureau: Bureau; model: EmuModel }[] = [];
  BUREAUS.forEach((bureau, bi) => {
    const models = EMU_MODELS.filter((mo) => eligible(mo, bureau));
    const picks: EmuModel[] = [];
    for (let i = 0; i < perBureau[bi]!; i++) picks.push(rng.weighted(models, (mo) => mo.weight));
    picks.sort((a, b) => EMU_MODELS.indexOf(a) - EMU_MODELS.indexOf(b));
    for (const model of picks) drawn.push({ bureau, model });
  });

  const next = new Map(EMU_MODELS.map((mo) => [mo, mo.firstNumber]));
  const fleet: EmuUnit[] = [];
  for (const { bureau, model } of drawn) {
    let n = next.get(model)!;
    if (rng.chance(0.04)) n += rng.int(1, 3);
    if (n > 9999) throw new RangeError(`fleet too large: ${model.model} ran past number 9999`);
    next.set(model, n + 1);
    fleet.push({
      index: fleet.length,
      code: `${model.model}-${String(n).padStart(4, '0')}`,
      model,
      bureau,
      depot: bureau.depots[0]!,
    });
  }
  return fleet;
}

export const FLEET_CSV_COLUMNS = [
  'emu_code',
  'model',
  'bureau',
  'train_depot',
  'depot',
  'design_max_speed',
  'operating_max_speed',
] as const;

/** fleet.csv in the fleet-import format: snake_case header, UTF-8, one unit per row. */
export function fleetCsv(fleet: readonly EmuUnit[]): string {
  return stringify(
    fleet.map((u) => [
      u.code,
      u.model.model,
      u.bureau.name,
      u.depot.trainDepot,
      u.depot.depot,
      u.model.designMaxSpeed,
      u.model.operatingMaxSpeed,
    ]),
    { header: true, columns: [...FLEET_CSV_COLUMNS], record_delimiter: '\n' },
  );
}
