import { z } from 'zod';
import { readEmuAllocation } from '../../emus/read-allocation.js';
import { ApiError } from '../api-error.js';
import { EmuAliasCache } from '../emu-alias-cache.js';
import { dataEnvelope, errorResponses } from '../envelope.js';
import { v2Operation } from '../openapi.js';
import { emuCodePathParam } from '../path-params.js';
import type { ApiServices, V2App } from '../services.js';

const coachLayoutSchema = z
  .object({
    coachNo: z.uint32(),
    coachTypeCode: z.string(),
    coachTypeName: z.string(),
    capacity: z.uint32(),
    hasPower: z.boolean(),
    hasPantograph: z.boolean(),
    hasLargeLuggageArea: z.boolean(),
    hasAccessibleFacility: z.boolean(),
  })
  .meta({ id: 'EmuAllocationCoachLayout' });

export const emuAllocationDataSchema = z
  .object({
    emuId: z.uint32(),
    model: z.string(),
    trainSetNo: z.string(),
    bureau: z.string(),
    trainDepot: z.string(),
    depot: z.string(),
    subModel: z.string(),
    customType: z.string(),
    trainsetManufacturer: z.string(),
    trailerManufacturer: z.string(),
    manufactureMonth: z.string(),
    toiletStatus: z.string(),
    socketLocation: z.string(),
    businessSeatType: z.string(),
    modelRemark: z.string(),
    note: z.string(),
    designMaxSpeed: z.uint32(),
    operatingMaxSpeed: z.uint32(),
    isPublic: z.boolean(),
    railwayTravelCodeEnabled: z.boolean(),
    firstClassPowerLegrest: z.boolean(),
    tags: z.array(z.string()),
    alias: z
      .array(z.string())
      .describe('Every other form the unit was written in (case-sensitive), sorted.'),
    coachLayouts: z.array(coachLayoutSchema).describe('By coach number; [] when unknown.'),
    emuCodeMappings: z
      .record(z.string(), z.string())
      .optional()
      .describe('emuId (as a string) -> canonical code.'),
  })
  .meta({ id: 'GetEmuAllocationData' });

/** GET /allocation/emu/{emuCode}: an EMU's base information. */
export function registerAllocationEmu(app: V2App, services: ApiServices): void {
  const { db, gate, costs } = services;
  const emus = new EmuAliasCache(db);
  app.get(
    '/api/v2/allocation/emu/:emuCode',
    {
      schema: {
        ...v2Operation({
          operationId: 'GetEmuAllocation',
          tag: 'Allocation',
          scope: 'api.allocation.emu.read',
          summary: "An EMU's base information and coach layouts",
          description: `The EMU named by its canonical code or any alias (case-sensitive); \`emuCodeMappings\` gives its canonical code. Every field is present: what the fleet import has not said is "" / 0 / false / [] (isPublic defaults to true). 404 not_found for an unknown code. Quota: ${costs.allocation.of()} per request.`,
        }),
        params: z.object({ emuCode: emuCodePathParam() }),
        response: { 200: dataEnvelope(emuAllocationDataSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { emuCode } = request.params;
      const emuId = await emus.find(emuCode);
      const allocation = emuId === undefined ? undefined : await readEmuAllocation(db, emuId);
      if (!allocation) throw new ApiError('not_found', `no EMU is known as ${emuCode}`);
      await gate.charge(request, costs.allocation.of());
      const meta = await gate.meta(request);
      gate.setHeaders(reply, meta);
      const { code, ...fields } = allocation;
      return { meta, data: { ...fields, emuCodeMappings: { [allocation.emuId]: code } } };
    },
  );
}
