import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type {
  CirculationDocument,
  CirculationPictures,
} from '../../../domain/circulation-images/circulation-pictures.js';
import type {
  PictureFormat,
  PictureRenderer,
} from '../../../domain/circulation-images/render-picture.js';
import { serviceDayOf } from '../../../shared/time/service-day.js';
import { timetableInForce } from '../../../domain/timetables/timetable-lookup.js';
import { isKnownTrain } from '../../../domain/trains/known-train.js';
import { ApiError } from '../api-error.js';
import { CurrentCirculationProvider } from '../../../domain/circulation/current-circulation-provider.js';
import { trainCodePathParam } from '../path-params.js';
import { booleanParam } from '../query-params.js';
import type { RouteOptions } from '../../app-context.js';
import { quotaOf } from '../v2-edge.js';
import { trainCodeOf } from '../train-codes.js';
import { trainCodeSchema } from '../schemas.js';

export const trainCirculationImageDataSchema = z
  .object({
    documentId: z
      .string()
      .describe('SHA-256 (hex) of the document: the same picture has the same id.'),
    imageUrl: z
      .string()
      .describe(
        'Where the document is served (a path under this server), for as long as it is kept.',
      ),
    requestTrainCode: trainCodeSchema.optional(),
    trainCode: trainCodeSchema.optional(),
    content: z.base64().optional().describe('The document, base64.'),
    binaryContentType: z.string().optional().describe('image/png or application/pdf.'),
  })
  .meta({ id: 'GetTrainCirculationImageData' });

const IMAGE_SCOPE = 'api.timetable.train.circulation.image.read';
/**
 * A document is named by the hash of its bytes, so its bytes never change; still no v2 answer
 * says `immutable` (docs/stale-days-and-caching.md: one rule, no exceptions to audit): a year,
 * revalidated (free) on a reload.
 */
const DOCUMENT_CACHE = 'public, max-age=31536000';
const DOCUMENT_FILE = /^([0-9a-f]{64})\.(png|pdf)$/;

function formatParam() {
  return z
    .string({ error: () => 'format must be given once' })
    .optional()
    .transform((value, ctx): PictureFormat => {
      if (value === undefined || value === 'png') return 'png';
      if (value === 'pdf') return 'pdf';
      ctx.addIssue({
        code: 'custom',
        message: `format must be png or pdf (got ${JSON.stringify(value.slice(0, 40))})`,
      });
      return z.NEVER;
    })
    .meta({ type: 'string', enum: ['png', 'pdf'], default: 'png' });
}

export function imageUrlOf(document: Pick<CirculationDocument, 'documentId' | 'format'>): string {
  return `/api/v2/circulation-images/${document.documentId}.${document.format}`;
}

export interface CirculationImageOptions extends RouteOptions {
  /** Draws the pictures; default PNG via resvg and PDF via pdfkit. Tests pass one that fails. */
  renderer?: PictureRenderer;
}

/** GET /timetable/train/{trainCode}/circulation/image and the documents it names. */
export const circulationImageRoutes: FastifyPluginAsyncZod<CirculationImageOptions> = async (
  app,
  options,
) => {
  const { services } = options;
  const { db, costs, clock } = services;
  const circulations =
    services.circulations ?? new CurrentCirculationProvider(db, services.config, clock);
  // Loaded on first use: the drawing stack (resvg, pdfkit, fontkit and the font metrics) is
  // about 45 MB of an API process's memory, and most processes never draw a picture.
  let loading:
    Promise<{ pictures: CirculationPictures; isRenderError(err: unknown): boolean }> | undefined;
  const picturesModule = () =>
    (loading ??= import('../../../domain/circulation-images/circulation-pictures.js').then((m) => ({
      pictures: new m.CirculationPictures(db, options.renderer),
      isRenderError: (err: unknown) => err instanceof m.PictureRenderError,
    })));

  app.get(
    '/timetable/train/:trainCode/circulation/image',
    {
      config: {
        v2: {
          operationId: 'GetTrainCirculationImage',
          tag: 'Timetable',
          scope: IMAGE_SCOPE,
          summary: "A picture of the train's current circulation",
          description: `The circulation GetCurrentTrainTimetable answers with (the official table covering today, else the inferred route), drawn as one row per day with each train's numbers, stations and times; the train asked for is highlighted. \`format\` png (default) or pdf. JSON by default, with the document in \`content\`; \`binary=true\` sends the document itself. \`imageUrl\` serves the same document by its documentId (free of quota, cacheable for good). 404 not_found for an unknown train, 422 no_circulation when it is in no circulation, 502 render_failed when drawing fails. Quota: ${costs.circulationImageCached.of()} when the picture was drawn before, ${costs.circulationImageRendered.of()} when it is drawn now, ${costs.circulationImageFailed.of()} when drawing fails.`,
          // Charged in the handler: the cost depends on whether the picture must be drawn.
          cost: { inHandler: true },
          errorStatuses: [422, 502],
        },
      },
      schema: {
        params: z.object({ trainCode: trainCodePathParam() }),
        querystring: z.object({ format: formatParam(), binary: booleanParam('binary') }),
        response: { 200: trainCirculationImageDataSchema },
        'x-binary-content': {
          'image/png': 'The picture (format=png, binary=true).',
          'application/pdf': 'The picture (format=pdf, binary=true).',
        },
      },
    },
    async (request, reply) => {
      const { trainCode } = request.params;
      const { format, binary } = request.query;
      if (!(await isKnownTrain(db, trainCode)))
        throw new ApiError('not_found', `no train ${trainCode} is known`);
      const serviceDay = serviceDayOf(clock() / 1000);
      const inForce = await timetableInForce(db, trainCode, serviceDay);
      const allCodes = inForce?.allCodes ?? [trainCode];
      const circulation = await circulations.circulationOf({
        trainCode: inForce?.timetableTrainCode ?? trainCode,
        allCodes,
        serviceDay,
      });
      if (!circulation || circulation.nodes.length === 0) {
        throw new ApiError(
          'no_circulation',
          `${trainCode} is in no circulation today: no official table covering the day holds it and no inferred route does`,
        );
      }
      const { pictures, isRenderError } = await picturesModule();
      const prepared = await pictures.prepare(
        circulation,
        [trainCode, ...allCodes.filter((c) => c !== trainCode)],
        format,
      );
      let document = prepared.cached;
      if (document) {
        await quotaOf(request).charge(costs.circulationImageCached.of());
      } else {
        await quotaOf(request).charge(costs.circulationImageRendered.of());
        try {
          document = await pictures.render(prepared);
        } catch (err) {
          if (!isRenderError(err)) throw err;
          request.log.error({ err, trainCode, format }, 'circulation picture failed');
          // A failed drawing costs its own price: settled, the error answer keeps it.
          await quotaOf(request).settle(costs.circulationImageFailed.of());
          throw new ApiError('render_failed', `the ${format} picture could not be drawn`);
        }
      }
      reply.header('etag', `"${document.documentId}"`);
      if (binary) {
        reply.header('content-type', document.contentType);
        reply.header('content-disposition', `inline; filename=${trainCode}.${format}`);
        reply.header('cache-control', 'no-cache');
        return (reply as FastifyReply).send(document.content);
      }
      const requested = trainCodeOf(trainCode);
      const resolved = inForce ? trainCodeOf(inForce.timetableTrainCode) : requested;
      return {
        documentId: document.documentId,
        imageUrl: imageUrlOf(document),
        ...(requested ? { requestTrainCode: requested } : {}),
        ...(resolved ? { trainCode: resolved } : {}),
        content: document.content.toString('base64'),
        binaryContentType: document.contentType,
      };
    },
  );

  app.get(
    '/circulation-images/:file',
    {
      config: {
        v2: {
          operationId: 'GetCirculationImageDocument',
          tag: 'Timetable',
          scope: IMAGE_SCOPE,
          summary:
            'A circulation picture by its documentId (the imageUrl of GetTrainCirculationImage)',
          description:
            'The document itself, `{documentId}.png` or `{documentId}.pdf`. Documents never change (the id is the hash of their bytes): cacheable for a year, and If-None-Match answers 304. Free of quota. 404 not_found when the document is not (or no longer) kept: ask GetTrainCirculationImage again.',
          cost: { free: true },
        },
      },
      schema: {
        params: z.object({
          file: z
            .string()
            .regex(DOCUMENT_FILE, 'file must be <documentId>.png or <documentId>.pdf')
            .meta({ description: '<documentId>.png or <documentId>.pdf' }),
        }),
        'x-binary-content': {
          'image/png': 'A PNG picture.',
          'application/pdf': 'A PDF picture.',
        },
      },
    },
    async (request, reply) => {
      const [, documentId, format] = DOCUMENT_FILE.exec(request.params.file)!;
      const etag = `"${documentId}"`;
      const inm = request.headers['if-none-match'];
      if (inm && inm.split(',').some((t) => t.trim().replace(/^W\//, '') === etag)) {
        reply.header('etag', etag);
        reply.header('cache-control', DOCUMENT_CACHE);
        return (reply as FastifyReply).code(304).send();
      }
      const { pictures } = await picturesModule();
      const document = await pictures.read(documentId!, format as PictureFormat);
      if (!document)
        throw new ApiError('not_found', `no circulation picture ${request.params.file}`);
      reply.header('etag', etag);
      reply.header('cache-control', DOCUMENT_CACHE);
      reply.header('content-type', document.contentType);
      return (reply as FastifyReply).send(document.content);
    },
  );
};
