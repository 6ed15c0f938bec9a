import { rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { Busboy } from '@fastify/busboy';
import type { MediaLibrary } from '../../../domain/media/media-library.js';
import type { ReceivedUpload } from '../../../domain/media/receive-upload.js';
import { RestError } from '../rest/rest-error.js';
import type { RestRequest } from '../rest/rest-request.js';

/** An upload read from a request: the bytes in a scratch file, the name, the other form fields. */
export interface UploadBody {
  received: ReceivedUpload;
  fileName: string;
  /** Multipart fields beside the file (title, caption, alt_text, post, ...). */
  fields: Record<string, string>;
}

const MAX_FIELDS = 100;
const MAX_FIELD_BYTES = 1024 * 1024;

/**
 * The file name of a Content-Disposition header (WordPress's get_filename_from_disposition):
 * `filename*=UTF-8''...` (RFC 5987) first, then `filename=` quoted or not.
 */
export function fileNameFromDisposition(disposition: string): string | undefined {
  const star = /filename\*\s*=\s*(?:([\w-]+)'[\w-]*')?("?)([^";]+)\2/i.exec(disposition);
  if (star) {
    try {
      return decodeURIComponent(star[3]!.trim());
    } catch {
      return star[3]!.trim();
    }
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/i.exec(disposition);
  const name = (plain?.[1]?.replace(/\\(.)/g, '$1') ?? plain?.[2] ?? '').trim();
  return name === '' ? undefined : name;
}

/** A multipart body the parser refuses (its headers or its parts): 400 `rest_upload_no_data`. */
function unreadableMultipart(err: unknown): RestError {
  const message = `The multipart body cannot be read: ${(err as Error).message}`;
  return new RestError('rest_upload_no_data', message, 400);
}

/** Reads what is left of a body so that the connection stays usable after a refusal. */
function drain(stream: Readable): void {
  stream.resume();
}

/** A raw upload: the body is the file (Content-Type, Content-Disposition, optional Content-MD5). */
async function readRawBody(
  request: RestRequest,
  body: Readable,
  library: MediaLibrary,
): Promise<UploadBody> {
  const type = request.headers['content-type'];
  if (!type) {
    drain(body);
    throw new RestError('rest_upload_no_content_type', 'No Content-Type supplied.', 400);
  }
  const disposition = request.headers['content-disposition'];
  const fileName = disposition ? fileNameFromDisposition(disposition) : undefined;
  if (!fileName) {
    drain(body);
    throw new RestError(
      'rest_upload_no_content_disposition',
      'No Content-Disposition supplied.',
      400,
    );
  }
  // A raw body's length is the file's: refuse an announced oversize before reading any of it.
  const announced = Number(request.headers['content-length'] ?? NaN);
  if (announced > library.options.maxUploadBytes) {
    drain(body);
    throw new RestError(
      'rest_upload_file_too_big',
      `the file is larger than the upload limit of ${library.options.maxUploadBytes} bytes`,
      413,
    );
  }
  const received = await library
    .receive(body, request.headers['content-md5']?.trim())
    .catch((err) => {
      drain(body);
      throw err;
    });
  return { received, fileName, fields: {} };
}

/** A multipart upload: the `file` part streams to scratch; the other fields are kept. */
function readMultipartBody(
  request: RestRequest,
  body: Readable,
  library: MediaLibrary,
): Promise<UploadBody> {
  return new Promise<UploadBody>((resolve, reject) => {
    const fields: Record<string, string> = {};
    let receiving: Promise<ReceivedUpload> | undefined;
    let fileName = '';
    let settled = false;
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      body.unpipe(parser);
      drain(body);
      // A file already received is of no use now.
      void receiving?.then(
        (r) => rm(r.scratchFile, { force: true }),
        () => {},
      );
      reject(err);
    };
    let parser: InstanceType<typeof Busboy>;
    try {
      parser = new Busboy({
        headers: { 'content-type': request.headers['content-type']!, ...request.headers },
        limits: { files: 1, fields: MAX_FIELDS, fieldSize: MAX_FIELD_BYTES },
      });
    } catch (err) {
      drain(body);
      reject(unreadableMultipart(err));
      return;
    }
    parser.on('file', (fieldname, stream, filename) => {
      if (fieldname !== 'file' || receiving) {
        stream.resume();
        return;
      }
      fileName = filename;
      receiving = library.receive(stream, request.headers['content-md5']?.trim());
      receiving.catch(fail);
    });
    parser.on('field', (name, value) => {
      fields[name] = value;
    });
    parser.on('error', (err: Error) => fail(unreadableMultipart(err)));
    parser.on('finish', () => {
      if (!receiving) {
        fail(new RestError('rest_upload_no_data', 'No data supplied.', 400));
        return;
      }
      receiving.then((received) => {
        if (settled) return;
        settled = true;
        resolve({ received, fileName: fileName || 'file', fields });
      }, fail);
    });
    body.on('error', fail);
    body.pipe(parser);
  });
}

/**
 * The file of a POST /wp/v2/media request, streamed to a scratch file: multipart (a `file`
 * field, other fields beside it) or the raw body. No body at all is 400 `rest_upload_no_data`.
 */
export function readUploadBody(request: RestRequest, library: MediaLibrary): Promise<UploadBody> {
  const body = request.bodyStream;
  if (!body) {
    // Without a Content-Type the edge parses no body at all: tell that apart from no body.
    const hasBytes =
      Number(request.headers['content-length'] ?? 0) > 0 ||
      request.headers['transfer-encoding'] !== undefined;
    if (hasBytes && !request.headers['content-type']) {
      return Promise.reject(
        new RestError('rest_upload_no_content_type', 'No Content-Type supplied.', 400),
      );
    }
    return Promise.reject(new RestError('rest_upload_no_data', 'No data supplied.', 400));
  }
  const type = request.headers['content-type'] ?? '';
  if (/^multipart\/form-data/i.test(type)) return readMultipartBody(request, body, library);
  return readRawBody(request, body, library);
}
