/**
 * The fleet CSV's columns: `emu_code` (required) and the allocation fields of the spec's
 * EmuAllocation in snake_case (all optional). `tags` and `alias` hold several values separated
 * by "|". Booleans accept true/false, 1/0, yes/no. An empty cell leaves the stored value as it is.
 */
export type FleetColumnKind = 'text' | 'int' | 'bool' | 'list';

export const FLEET_COLUMNS = {
  model: 'text',
  train_set_no: 'text',
  bureau: 'text',
  train_depot: 'text',
  depot: 'text',
  sub_model: 'text',
  custom_type: 'text',
  trainset_manufacturer: 'text',
  trailer_manufacturer: 'text',
  manufacture_month: 'text',
  toilet_status: 'text',
  socket_location: 'text',
  business_seat_type: 'text',
  model_remark: 'text',
  note: 'text',
  design_max_speed: 'int',
  operating_max_speed: 'int',
  is_public: 'bool',
  railway_travel_code_enabled: 'bool',
  first_class_power_legrest: 'bool',
  tags: 'list',
} as const satisfies Record<string, FleetColumnKind>;

export type FleetColumn = keyof typeof FLEET_COLUMNS;

export const SQL_TYPE: Record<FleetColumnKind, string> = {
  text: 'text',
  int: 'integer',
  bool: 'boolean',
  // Lists travel as "|"-joined text and are split in SQL: unnest cannot take a text[][] of ragged rows.
  list: 'text',
};

export type FleetValue = string | number | boolean | null;

/** Parses one cell; an empty cell is null (keep what is stored); a bad one throws a reason. */
export function parseFleetCell(kind: FleetColumnKind, raw: string): FleetValue {
  const v = raw.trim();
  if (v === '') return null;
  switch (kind) {
    case 'text':
      return v;
    case 'int': {
      if (!/^\d{1,9}$/.test(v))
        throw new Error(`expected a whole number, got ${JSON.stringify(raw)}`);
      return Number(v);
    }
    case 'bool': {
      const l = v.toLowerCase();
      if (['true', '1', 'yes', 'y', 't'].includes(l)) return true;
      if (['false', '0', 'no', 'n', 'f'].includes(l)) return false;
      throw new Error(`expected true/false, got ${JSON.stringify(raw)}`);
    }
    case 'list':
      return v
        .split('|')
        .map((x) => x.trim())
        .filter((x) => x !== '')
        .join('|');
  }
}
