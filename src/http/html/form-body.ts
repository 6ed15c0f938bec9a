import formbody from '@fastify/formbody';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyTypeProvider,
  RawServerDefault,
} from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The content type of an HTML form's post. */
export const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';

/**
 * Makes `scope` read the bodies of form posts. A scope whose parent reads them already is left
 * as it is: the parser is inherited, and registering it twice throws.
 */
export async function formBody<Log extends FastifyBaseLogger, Types extends FastifyTypeProvider>(
  scope: FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, Log, Types>,
): Promise<void> {
  if (!scope.hasContentTypeParser(FORM_CONTENT_TYPE)) await scope.register(formbody);
}
