import type { Queryable } from '../../shared/db/db.js';

/** One coach of an EMU's layout (EmuAllocationCoachLayout). */
export interface CoachLayout {
  coachNo: number;
  coachTypeCode: string;
  coachTypeName: string;
  capacity: number;
  hasPower: boolean;
  hasPantograph: boolean;
  hasLargeLuggageArea: boolean;
  hasAccessibleFacility: boolean;
}

/** An EMU's base information as stored (EmuAllocation); unknown values are zero values. */
export interface EmuAllocation {
  emuId: number;
  code: string;
  model: string;
  trainSetNo: string;
  bureau: string;
  trainDepot: string;
  depot: string;
  subModel: string;
  customType: string;
  trainsetManufacturer: string;
  trailerManufacturer: string;
  manufactureMonth: string;
  toiletStatus: string;
  socketLocation: string;
  businessSeatType: string;
  modelRemark: string;
  note: string;
  designMaxSpeed: number;
  operatingMaxSpeed: number;
  isPublic: boolean;
  railwayTravelCodeEnabled: boolean;
  firstClassPowerLegrest: boolean;
  tags: string[];
  /** Every other written form the unit is known by, sorted; the canonical code is not repeated. */
  alias: string[];
  coachLayouts: CoachLayout[];
}

interface AllocationRow {
  id: number;
  code: string;
  model: string;
  train_set_no: string;
  bureau: string;
  train_depot: string;
  depot: string;
  sub_model: string;
  custom_type: string;
  trainset_manufacturer: string;
  trailer_manufacturer: string;
  manufacture_month: string;
  toilet_status: string;
  socket_location: string;
  business_seat_type: string;
  model_remark: string;
  note: string;
  design_max_speed: number;
  operating_max_speed: number;
  is_public: boolean;
  railway_travel_code_enabled: boolean;
  first_class_power_legrest: boolean;
  tags: string[];
  aliases: string[];
  coaches: {
    coach_no: number;
    coach_type_code: string;
    coach_type_name: string;
    capacity: number;
    has_power: boolean;
    has_pantograph: boolean;
    has_large_luggage_area: boolean;
    has_accessible_facility: boolean;
  }[];
}

/**
 * An EMU's allocation with its aliases (those of units merged into it by a correction included)
 * and coach layouts (by coach number), or undefined.
 */
export async function readEmuAllocation(
  db: Queryable,
  emuId: number,
): Promise<EmuAllocation | undefined> {
  const r = await db.query<AllocationRow>(
    `SELECT e.*,
            ARRAY(SELECT a.alias FROM emu_aliases a
                   WHERE (a.emu_id = e.id
                          OR a.emu_id IN (SELECT m.from_emu_id FROM emu_merges m
                                           WHERE m.target_emu_id = e.id))
                     AND a.alias <> e.code ORDER BY a.alias) AS aliases,
            coalesce((SELECT json_agg(row_to_json(c) ORDER BY c.coach_no)
                        FROM emu_coach_layouts c WHERE c.emu_id = e.id), '[]') AS coaches
       FROM emus e WHERE e.id = $1`,
    [emuId],
  );
  const e = r.rows[0];
  if (!e) return undefined;
  return {
    emuId: e.id,
    code: e.code,
    model: e.model,
    trainSetNo: e.train_set_no,
    bureau: e.bureau,
    trainDepot: e.train_depot,
    depot: e.depot,
    subModel: e.sub_model,
    customType: e.custom_type,
    trainsetManufacturer: e.trainset_manufacturer,
    trailerManufacturer: e.trailer_manufacturer,
    manufactureMonth: e.manufacture_month,
    toiletStatus: e.toilet_status,
    socketLocation: e.socket_location,
    businessSeatType: e.business_seat_type,
    modelRemark: e.model_remark,
    note: e.note,
    designMaxSpeed: e.design_max_speed,
    operatingMaxSpeed: e.operating_max_speed,
    isPublic: e.is_public,
    railwayTravelCodeEnabled: e.railway_travel_code_enabled,
    firstClassPowerLegrest: e.first_class_power_legrest,
    tags: e.tags,
    alias: e.aliases,
    coachLayouts: e.coaches.map((c) => ({
      coachNo: c.coach_no,
      coachTypeCode: c.coach_type_code,
      coachTypeName: c.coach_type_name,
      capacity: c.capacity,
      hasPower: c.has_power,
      hasPantograph: c.has_pantograph,
      hasLargeLuggageArea: c.has_large_luggage_area,
      hasAccessibleFacility: c.has_accessible_facility,
    })),
  };
}
