import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { MediaStorage } from '../../../domain/media/media-storage.js';
import { isValidStorageKey } from '../../../domain/media/media-storage.js';
import { ALLOWED_MEDIA_KINDS, extensionOf } from '../../../domain/media/media-types.js';

const TYPE_OF_EXTENSION = new Map<string, string>();
for (const kind of ALLOWED_MEDIA_KINDS.values()) {
  for (const ext of kind.extensions)
    if (!TYPE_OF_EXTENSION.has(ext)) TYPE_OF_EXTENSION.set(ext, kind.mime);
}

/** A year: files never change once written (names are unique and never reused while they exist). */
const CACHE_CONTROL = 'public, max-age=31536000, immutable';

function contentTypeOf(key: string): string {
  const mime = TYPE_OF_EXTENSION.get(extensionOf(key)) ?? 'application/octet-stream';
  return mime.startsWith('text/') ? `${mime}; charset=utf-8` : mime;
}

/** `bytes=a-b`, `bytes=a-`, `bytes=-n` of a file of `size` bytes; undefined = not satisfiable. */
function parseRange(
  header: string,
  size: number,
): { start: number; end: number } | undefined | 'ignore' {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return 'ignore';
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return undefined;
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start > end || start >= size) return undefined;
  return { start, end };
}

/**
 * GET /wp-content/uploads/<key>: the stored files, streamed, with a long-lived cache (names are
 * never overwritten), a validator (ETag, Last-Modified), single byte ranges (video seeking) and
 * nosniff. Scratch files and anything outside the storage are never reachable.
 */
export function registerUploadsRoute(app: FastifyInstance, storage: MediaStorage): void {
  const serve = async (request: FastifyRequest, reply: FastifyReply) => {
    const raw = (request.params as { '*': string })['*'];
    let key: string;
    try {
      key = raw.split('/').map(decodeURIComponent).join('/');
    } catch {
      return reply.code(404).type('text/plain').send('Not Found');
    }
    if (!isValidStorageKey(key) || key.startsWith('.')) {
      return reply.code(404).type('text/plain').send('Not Found');
    }
    const info = await storage.stat(key);
    if (!info) return reply.code(404).type('text/plain').send('Not Found');
    const etag = `"${info.size.toString(16)}-${info.modifiedAt.getTime().toString(16)}"`;
    reply.header('cache-control', CACHE_CONTROL);
    reply.header('etag', etag);
    reply.header('last-modified', info.modifiedAt.toUTCString());
    reply.header('accept-ranges', 'bytes');
    reply.header('x-content-type-options', 'nosniff');
    reply.type(contentTypeOf(key));
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    const rangeHeader = request.headers.range;
    if (rangeHeader) {
      const range = parseRange(rangeHeader, info.size);
      if (range === undefined) {
        reply.header('content-range', `bytes */${info.size}`);
        return reply.code(416).send();
      }
      if (range !== 'ignore') {
        reply.header('content-range', `bytes ${range.start}-${range.end}/${info.size}`);
        reply.header('content-length', range.end - range.start + 1);
        if (request.method === 'HEAD') return reply.code(206).send();
        return reply.code(206).send(storage.read(key, range));
      }
    }
    reply.header('content-length', info.size);
    if (request.method === 'HEAD') return reply.send();
    return reply.send(storage.read(key));
  };
  app.route({ method: ['GET', 'HEAD'], url: '/wp-content/uploads/*', handler: serve });
}
