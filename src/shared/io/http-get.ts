import { EmutrackError } from '../errors/emutrack-error.js';

/**
 * One GET as plain data: what a puller of another server needs of HTTP, with the defences it
 * always wants (a deadline over the whole exchange, no redirects followed, a bounded body).
 */
export interface HttpGetRequest {
  url: string;
  headers: Record<string, string>;
  /** The whole exchange (connect, headers, body) must end within this. */
  timeoutMs: number;
  /** A body longer than this is refused. */
  maxBytes: number;
}

export interface HttpGetResponse {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string;
}

export type HttpGet = (request: HttpGetRequest) => Promise<HttpGetResponse>;

/** Why a GET got no answer: `reason` is one line, without the URL (the caller adds its own). */
export class HttpGetFailure extends EmutrackError {
  constructor(
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super('http_get_failed', reason, options);
  }
}

function causeText(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code) return cause.code;
  if (cause?.message) return cause.message;
  return (err as Error).message;
}

/** The default HttpGet: Node's fetch, redirects answered as they are (never followed). */
export const fetchGet: HttpGet = async ({ url, headers, timeoutMs, maxBytes }) => {
  const deadline = AbortSignal.timeout(timeoutMs);
  // Aborted too when the body runs past maxBytes: the connection is dropped, not drained.
  const stop = new AbortController();
  const signal = AbortSignal.any([deadline, stop.signal]);
  let res: Response;
  try {
    res = await fetch(url, { method: 'GET', headers, redirect: 'manual', signal });
  } catch (err) {
    if (deadline.aborted)
      throw new HttpGetFailure(`no answer within ${timeoutMs} ms`, { cause: err });
    throw new HttpGetFailure(`connection failed (${causeText(err)})`, { cause: err });
  }
  const out: Record<string, string> = {};
  res.headers.forEach((value, name) => (out[name] = value));
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    if (res.body) {
      for await (const chunk of res.body) {
        size += chunk.byteLength;
        if (size > maxBytes) {
          stop.abort();
          throw new HttpGetFailure(`answer longer than ${maxBytes} bytes`);
        }
        chunks.push(chunk);
      }
    }
  } catch (err) {
    if (err instanceof HttpGetFailure) throw err;
    if (deadline.aborted)
      throw new HttpGetFailure(`answer not finished within ${timeoutMs} ms`, { cause: err });
    throw new HttpGetFailure(`connection cut while reading the answer (${causeText(err)})`, {
      cause: err,
    });
  }
  return { status: res.status, headers: out, body: Buffer.concat(chunks).toString('utf8') };
};
