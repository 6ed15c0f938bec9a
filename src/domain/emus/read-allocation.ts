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

/**
 * An EMU's allocation with its aliases (those of units merged into it by a correction included)
 * and coach layouts (by coach number), or undefined.
 */
export async function readEmuAllocation(
  db: Queryable,
  emuId: number,
): Promise<EmuAllocation | undefined> {
  // Each column is named as its EmuAllocation field, in the interface's order.
  const r = await db.query<EmuAllocation>(
    `SELECT e.id AS "emuId", e.code, e.model, e.train_set_no AS "trainSetNo", e.bureau,
            e.train_depot AS "trainDepot", e.depot, e.sub_model AS "subModel",
            e.custom_type AS "customType", e.trainset_manufacturer AS "trainsetManufacturer",
            e.trailer_manufacturer AS "trailerManufacturer",
            e.manufacture_month AS "manufactureMonth", e.toilet_status AS "toiletStatus",
            e.socket_location AS "socketLocation", e.business_seat_type AS "businessSeatType",
            e.model_remark AS "modelRemark", e.note, e.design_max_speed AS "designMaxSpeed",
            e.operating_max_speed AS "operatingMaxSpeed", e.is_public AS "isPublic",
            e.railway_travel_code_enabled AS "railwayTravelCodeEnabled",
            e.first_class_power_legrest AS "firstClassPowerLegrest", e.tags,
            ARRAY(SELECT a.alias FROM emu_aliases a
                   WHERE (a.emu_id = e.id
                          OR a.emu_id IN (SELECT m.from_emu_id FROM emu_merges m
                                           WHERE m.target_emu_id = e.id))
                     AND a.alias <> e.code ORDER BY a.alias) AS alias,
            coalesce((SELECT json_agg(json_build_object(
                               'coachNo', c.coach_no, 'coachTypeCode', c.coach_type_code,
                               'coachTypeName', c.coach_type_name, 'capacity', c.capacity,
                               'hasPower', c.has_power, 'hasPantograph', c.has_pantograph,
                               'hasLargeLuggageArea', c.has_large_luggage_area,
                               'hasAccessibleFacility', c.has_accessible_facility)
                             ORDER BY c.coach_no)
                        FROM emu_coach_layouts c WHERE c.emu_id = e.id), '[]') AS "coachLayouts"
       FROM emus e WHERE e.id = $1`,
    [emuId],
  );
  return r.rows[0];
}
