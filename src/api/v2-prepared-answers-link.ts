import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PageVersionKey } from '../records/page-versions.js';
import type { BucketRef } from '../quota/quota-store.js';
import type { Caller } from './caller.js';
import { answerPrepared, type PreparedAnswerContext } from './prepared-answers.js';
import type { V2Edge } from './v2-edge.js';

/**
 * Every call the v2 edge makes into the prepared-answer path (prepared-answers.ts) and the page
 * versions it depends on, in one place: the edge asks here, in its onRequest hook, whether a kept
 * page answers the request at once (v2-caller-quota.ts), and sendDataJson tells here which kept
 * page answered a URL (v2-sending.ts). Nothing else of the edge knows of prepared answers.
 */

export type { PreparedAnswers } from './prepared-answers.js';

/** The kept page a route answered from (sendDataJson's `prepared`). */
export interface KeptPageRef {
  pageKey: string;
  depends: PageVersionKey;
}

/** What the edge knows of a request at once, for a prepared answer. */
export interface CallerNow {
  /** The caller, when it is known at once (anonymous, or a cached credential); else undefined. */
  callerNow(request: FastifyRequest): Caller | undefined;
  bucketOf(caller: Caller): BucketRef;
}

/** The app's prepared answers, or undefined when it keeps none. */
export function keptPageAnswers(
  edge: V2Edge,
  known: CallerNow,
): { answered(request: FastifyRequest, reply: FastifyReply): boolean } | undefined {
  if (!edge.prepared) return undefined;
  const context: PreparedAnswerContext = {
    prepared: edge.prepared,
    credentials: edge.credentials,
    store: edge.store,
    ...known,
  };
  return { answered: (request, reply) => answerPrepared(request, reply, context) };
}

/**
 * Remembers that `page` answered this GET's URL, with what the answer reserves and costs, so
 * that the next request of the URL can be answered from it by the edge.
 */
export function rememberKeptPage(
  request: FastifyRequest,
  edge: V2Edge,
  page: KeptPageRef,
  records: number,
  minCost: number,
): void {
  const rule = request.routeOptions.config.v2?.cost;
  if (!edge.prepared || !rule || request.method !== 'GET') return;
  const costs =
    'perRecord' in rule
      ? {
          reserve: Math.max(minCost, rule.perRecord.of(rule.reserveRecords(request))),
          cost: Math.max(minCost, rule.perRecord.of(records)),
        }
      : 'fixed' in rule
        ? { reserve: Math.max(minCost, rule.fixed.of()), cost: Math.max(minCost, rule.fixed.of()) }
        : undefined;
  if (costs) edge.prepared.remember(request.url, { ...page, ...costs });
}
