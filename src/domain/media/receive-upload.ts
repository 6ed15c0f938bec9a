import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { MediaError } from './media-error.js';
import type { MediaStorage } from './media-storage.js';

/** An upload's bytes, written to a scratch file and checked on the way. */
export interface ReceivedUpload {
  scratchFile: string;
  size: number;
  /** Hex MD5 of the bytes (compared with Content-MD5, as WordPress does). */
  md5: string;
}

export interface ReceiveUploadOptions {
  /** Largest accepted size in bytes; the copy stops as soon as it is passed. */
  maxBytes: number;
  /** Hex MD5 the client said the body has (Content-MD5); checked once all bytes are in. */
  expectedMd5?: string;
}

/**
 * Streams `body` to a new scratch file in `storage`, hashing and counting as it goes, so the
 * file is never held in memory. Too many bytes (413), no bytes (400), a hash mismatch (412) or
 * an interrupted body (the stream's error) leave no scratch file behind.
 */
export async function receiveUpload(
  storage: MediaStorage,
  body: Readable,
  options: ReceiveUploadOptions,
): Promise<ReceivedUpload> {
  // The body may fail before the pipeline below is attached (the client gone while the scratch
  // directory is made): keep that error instead of letting it go unhandled.
  let earlyError: unknown;
  const keepError = (err: unknown) => {
    earlyError ??= err;
  };
  body.on('error', keepError);
  const scratchFile = await storage.scratchPath();
  const md5 = createHash('md5');
  let size = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > options.maxBytes) {
        done(
          new MediaError(
            'rest_upload_file_too_big',
            413,
            `the file is larger than the upload limit of ${options.maxBytes} bytes`,
          ),
        );
        return;
      }
      md5.update(chunk);
      done(null, chunk);
    },
  });
  try {
    if (earlyError !== undefined) throw earlyError;
    await pipeline(body, meter, createWriteStream(scratchFile, { flags: 'wx' }));
    if (size === 0) throw new MediaError('rest_upload_no_data', 400, 'no data supplied');
    const digest = md5.digest('hex');
    if (options.expectedMd5 !== undefined && options.expectedMd5.toLowerCase() !== digest) {
      throw new MediaError(
        'rest_upload_hash_mismatch',
        412,
        'the file does not match the hash given in Content-MD5',
      );
    }
    return { scratchFile, size, md5: digest };
  } catch (err) {
    await rm(scratchFile, { force: true });
    throw err;
  } finally {
    body.off('error', keepError);
  }
}
