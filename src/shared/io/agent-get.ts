import http from 'node:http';
import https from 'node:https';
import { HttpGetFailure, type HttpGet, type HttpGetResponse } from './http-get.js';

/**
 * The connections kept between requests, one pool per scheme: a pull asks one server for page
 * after page, and a connection made again for each costs it a handshake. Idle sockets do not
 * keep the process alive (the agent unrefs them) and are closed a second before the server's
 * Keep-Alive timeout says it would close them.
 */
const agents = {
  http: new http.Agent({ keepAlive: true, maxSockets: 8 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 8 }),
};

function codeOf(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown };
  return typeof e.code === 'string' && e.code !== '' ? e.code : String(e.message);
}

function headersOf(res: http.IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value !== undefined) out[name] = typeof value === 'string' ? value : value.join(', ');
  }
  return out;
}

/**
 * An HttpGet on node:http with kept-alive connections: what fetchGet does for a puller (a
 * deadline over the whole exchange, redirects answered as they are, a bounded body, the same
 * failure reasons) without fetch's per-request and per-chunk machinery (WHATWG streams,
 * headers, abort signals). Only http: and https: URLs are asked; a source's base URL is one of
 * them (checkBaseUrl).
 */
export const agentGet: HttpGet = ({ url, headers, timeoutMs, maxBytes }) =>
  new Promise<HttpGetResponse>((resolve, reject) => {
    const target = new URL(url);
    const secure = target.protocol === 'https:';
    let settled = false;
    let answered = false;
    let req: http.ClientRequest | undefined;
    const fail = (failure: HttpGetFailure) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      reject(failure);
      // Dropped, not drained: what is left of the answer is not read.
      req?.destroy();
    };
    const deadline = setTimeout(() => {
      const what = answered ? 'answer not finished' : 'no answer';
      fail(new HttpGetFailure(`${what} within ${timeoutMs} ms`));
    }, timeoutMs);
    const cut = (err: unknown) =>
      fail(
        new HttpGetFailure(`connection cut while reading the answer (${codeOf(err)})`, {
          cause: err,
        }),
      );
    const answer = (res: http.IncomingMessage) => {
      answered = true;
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.byteLength;
        if (size > maxBytes) fail(new HttpGetFailure(`answer longer than ${maxBytes} bytes`));
        else chunks.push(chunk);
      });
      res.on('error', cut);
      res.on('close', () => {
        if (!res.complete) cut(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
      });
      res.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        const body = Buffer.concat(chunks, size).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: headersOf(res), body });
      });
    };
    try {
      const options = { headers, agent: secure ? agents.https : agents.http };
      req = secure ? https.get(target, options, answer) : http.get(target, options, answer);
    } catch (err) {
      // A header node:http refuses (a control character): said as fetch would, never its value.
      fail(new HttpGetFailure(`connection failed (${codeOf(err)})`, { cause: err }));
      return;
    }
    req.on('error', (err) => {
      if (answered) cut(err);
      else fail(new HttpGetFailure(`connection failed (${codeOf(err)})`, { cause: err }));
    });
  });
