import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import { z } from 'zod';
import { readEmuAllocation } from '../../../domain/emus/read-allocation.js';
import { ApiError } from '../api-error.js';
import { emuCodePathParam } from '../path-params.js';
import type { RouteOptions } from '../../app-context.js';

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
export const allocationEmuRoutes: FastifyPluginAsyncZod<RouteOptions> = async (
  app,
  { services },
) => {
  const { db, costs, emuAliases: emus } = services;
  app.get(
    '/allocation/emu/:emuCode',
    {
      config: {
        v2: {
          operationId: 'GetEmuAllocation',
          tag: 'Allocation',
          scope: 'api.allocation.emu.read',
          summary: "An EMU's base information and coach layouts",
          description: `The EMU named by its canonical code or any alias (case-sensitive); \`emuCodeMappings\` gives its canonical code. Every field is present: what the fleet import has not said is "" / 0 / false / [] (isPublic defaults to true). 404 not_found for an unknown code. Quota: ${costs.allocation.of()} per request.`,
          cost: { fixed: costs.allocation },
          cache: 'timetables',
        },
      },
      schema: {
        params: z.object({ emuCode: emuCodePathParam() }),
        response: { 200: emuAllocationDataSchema },
      },
    },
    async (request) => {
      const { emuCode } = request.params;
      const emuId = await emus.find(emuCode);
      const allocation = emuId === undefined ? undefined : await readEmuAllocation(db, emuId);
      if (!allocation) throw new ApiError('not_found', `no EMU is known as ${emuCode}`);
      const { code, ...fields } = allocation;
      return { ...fields, emuCodeMappings: { [allocation.emuId]: code } };
    },
  );
};
