import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, RawServerDefault } from 'fastify';
import type { Logger } from '../../shared/log/logger.js';

/** The API app as buildApp makes it (a pino logger instance), for plugins registered on it. */
export type ApiFastify = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, Logger>;
