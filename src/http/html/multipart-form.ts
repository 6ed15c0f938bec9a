import { Busboy } from '@fastify/busboy';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** The content type of an HTML form's post with a file input (enctype="multipart/form-data"). */
export const MULTIPART_CONTENT_TYPE = 'multipart/form-data';

/** A file of a posted form, read whole into memory (the parser's limit bounds it). */
export class PostedFile {
  constructor(
    readonly bytes: Buffer,
    /** The name the browser gave (for nothing but the reader's own eyes). */
    readonly fileName: string,
  ) {}
}

/**
 * A posted form over the limits: its Content-Length, or a file that passed `maxFileBytes`
 * while it was read. The body is then `{ [OVERSIZED_FIELD]: name }`, no other field; the
 * handler answers 413 naming the field (and closes the connection: the rest is never read).
 */
export const OVERSIZED_FIELD = Symbol('oversized field');

const MAX_FIELDS = 20;
const MAX_FIELD_BYTES = 16 * 1024;
/** What a form's text fields and the multipart framing may add to its file. */
const FRAMING_BYTES = 64 * 1024;

/** The field of a form that was over the limits, if it was. */
export function oversizedField(request: FastifyRequest): string | undefined {
  const body = request.body as Record<string | symbol, unknown> | undefined;
  const name = body?.[OVERSIZED_FIELD];
  return typeof name === 'string' ? name : undefined;
}

/** The file posted as `name`, if a non-empty one was (an empty file input sends no bytes). */
export function postedFile(request: FastifyRequest, name: string): PostedFile | undefined {
  const v = (request.body as Record<string, unknown> | undefined)?.[name];
  return v instanceof PostedFile && v.bytes.length > 0 ? v : undefined;
}

/**
 * Makes `scope` read multipart form posts: text fields as strings (at most 20 of 16 KiB), and
 * the files named in `files` as PostedFile, at most `maxFileBytes` each; other files are
 * skipped. A body announced larger than the limit is refused before any of it is read; one
 * without a length, as soon as a file passes it. A body that is not multipart is a 400.
 */
export function multipartForm(
  scope: FastifyInstance,
  options: { files: readonly string[]; maxFileBytes: number },
): void {
  const maxBody = options.maxFileBytes * options.files.length + FRAMING_BYTES;
  // Fastify's bodyLimit holds for the parsers it reads the body for, not this streaming one:
  // the limits are this parser's own.
  scope.addContentTypeParser(MULTIPART_CONTENT_TYPE, (request, payload, done) => {
    const fields: Record<string | symbol, unknown> = {};
    let settled = false;
    const finish = (err: Error | null, body?: Record<string | symbol, unknown>) => {
      if (settled) return;
      settled = true;
      payload.unpipe();
      done(err, body);
    };
    const oversized = (name: string) => finish(null, { [OVERSIZED_FIELD]: name });
    if (Number(request.headers['content-length'] ?? 0) > maxBody) {
      oversized(options.files[0] ?? 'body');
      return;
    }
    let parser: InstanceType<typeof Busboy>;
    try {
      parser = new Busboy({
        headers: { ...request.headers, 'content-type': request.headers['content-type']! },
        limits: {
          fields: MAX_FIELDS,
          fieldSize: MAX_FIELD_BYTES,
          files: options.files.length,
          fileSize: options.maxFileBytes,
        },
      });
    } catch (err) {
      finish(Object.assign(new Error(`body: ${(err as Error).message}`), { statusCode: 400 }));
      return;
    }
    parser.on('field', (name, value) => {
      if (typeof name === 'string' && name !== '__proto__') fields[name] = value;
    });
    parser.on('file', (name, stream, fileName) => {
      if (!options.files.includes(name) || name in fields) {
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('limit', () => oversized(name));
      stream.on('end', () => {
        if (!settled) fields[name] = new PostedFile(Buffer.concat(chunks), fileName);
      });
    });
    parser.on('error', (err: Error) =>
      finish(Object.assign(new Error(`body: ${err.message}`), { statusCode: 400 })),
    );
    parser.on('finish', () => finish(null, fields));
    payload.on('error', (err) => finish(err));
    payload.pipe(parser);
  });
}
