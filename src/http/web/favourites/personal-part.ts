import type { FastifyReply, FastifyRequest } from 'fastify';
import { brotliDecompressSync } from 'node:zlib';
import type { ServedPage } from '../../api/page-cache.js';
import type { Html } from '../../html/html.js';
import { signedInBrowser, type SignedInBrowser } from '../../session/web-session.js';
import { sendKeptPage } from '../send-page.js';

/**
 * Where a signed-in reader's part goes in a kept page: right after its one h1 (the layout's,
 * webPage), so the part sits under the page's heading.
 */
const AFTER = '</h1>';

/**
 * Sends a page of the page cache with a part for the signed-in reader (a star, their
 * favourites).
 *
 * The kept page is the anonymous page, made and kept exactly as for every reader: nothing of a
 * user is ever rendered into it. A reader without a live web session gets it as kept (public,
 * one copy per language and scheme, its ETag and 304s). A signed-in reader gets a copy of it with
 * `part(browser)` placed after the heading, sent `Cache-Control: no-store` and without the ETag
 * (the data versions do not move when their favourites do, so a 304 could show a stale star):
 * no cache, shared or the browser's, the service worker's included, keeps the personal copy.
 * The expensive part, the page, is still rendered once and shared; the personal part is a
 * small query and a few lines of markup per request.
 */
export async function sendKeptPageWithPersonalPart(
  request: FastifyRequest,
  reply: FastifyReply,
  page: ServedPage,
  part: (browser: SignedInBrowser) => Promise<Html>,
): Promise<FastifyReply> {
  const browser = await signedInBrowser(request);
  if (!browser) return sendKeptPage(request, reply, page);
  const kept = page.body as string | Buffer;
  const text =
    typeof kept === 'string'
      ? kept
      : (page.encoding === 'br' ? brotliDecompressSync(kept) : kept).toString('utf8');
  const at = text.indexOf(AFTER);
  const personal = (await part(browser)).text;
  const body =
    at === -1
      ? text
      : `${text.slice(0, at + AFTER.length)}${personal}${text.slice(at + AFTER.length)}`;
  return reply
    .code(200)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('vary', 'Accept-Language, Cookie, Accept-Encoding')
    .send(body);
}
