import type { FastifyReply, FastifyRequest } from 'fastify';
import { brotliDecompressSync } from 'node:zlib';
import { etagMatches } from '../api/http-caching.js';
import type { ServedPage } from '../api/page-cache.js';
import { preferredEncoding } from './assets/web-assets.js';

export interface SentPage {
  /** The page's HTML (bytes when it came from the page cache). */
  body: string | Buffer;
  /** 'br': `body` is kept compressed (the page cache's PageOptions.encoding). */
  encoding?: 'br' | undefined;
  /** The entity tag of what it shows (the page cache's, from the data version); none = no 304. */
  etag?: string;
  /** Default 200. */
  status?: number;
}

/**
 * Sends a page of the web app. Every page is the same for every reader of one language and
 * colour scheme (nothing of a signed-in user is in it), so a shared cache may keep it, but must
 * ask again each time (`no-cache`: late data and corrections change any day) and keep one copy
 * per language and scheme (`Vary`). A matching If-None-Match is a 304. A page kept compressed
 * goes as it is kept to a client that takes brotli, decoded for any other (the web scope then
 * compresses it as it does every other answer).
 */
export function sendPage(
  request: FastifyRequest,
  reply: FastifyReply,
  page: SentPage,
): FastifyReply {
  void reply
    .code(page.status ?? 200)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'public, no-cache')
    .header('vary', 'Accept-Language, Cookie, Accept-Encoding');
  if (page.etag !== undefined) {
    void reply.header('etag', page.etag);
    if ((page.status ?? 200) === 200 && etagMatches(request.headers['if-none-match'], page.etag)) {
      return reply.code(304).send();
    }
  }
  if (page.encoding !== 'br' || !Buffer.isBuffer(page.body)) return reply.send(page.body);
  if (preferredEncoding(request.headers['accept-encoding']) === 'br') {
    return reply.header('content-encoding', 'br').send(page.body);
  }
  return reply.send(brotliDecompressSync(page.body));
}

/**
 * Sends a CSV download made from the page cache (`file`: its body and entity tag) as the file
 * `name`: like a page, a shared cache may keep it but must ask again; a matching If-None-Match
 * is a 304.
 */
export function sendCsvFile(
  request: FastifyRequest,
  reply: FastifyReply,
  name: string,
  file: { body: unknown; etag: string },
): FastifyReply {
  void reply
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${name}"`)
    .header('cache-control', 'public, no-cache')
    .header('etag', file.etag);
  if (etagMatches(request.headers['if-none-match'], file.etag)) return reply.code(304).send();
  return reply.send(file.body as string | Buffer);
}

/**
 * Sends a page from the page cache as `sendPage` does. A web page renders one HTML text, so what
 * the cache serves is that text or its bytes, never the API's list of JSON pieces.
 */
export function sendKeptPage(
  request: FastifyRequest,
  reply: FastifyReply,
  page: ServedPage,
): FastifyReply {
  return sendPage(request, reply, {
    body: page.body as string | Buffer,
    encoding: page.encoding,
    etag: page.etag,
  });
}
