import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ApiApp } from '../../src/http/api/app.js';
import type { PullClock } from '../../src/domain/sources/v2-client.js';
import type { Db } from '../../src/shared/db/db.js';
import { FIRST_DAY, LAST_DAY } from '../api/helpers/fixture-week.js';

/** A clock whose sleep moves it at once: a pull's waits cost no real time. */
export function fastClock(startMs: number): PullClock & { sleeps: number[] } {
  let t = startMs;
  const sleeps: number[] = [];
  return {
    now: () => t,
    sleep: async (ms) => {
      sleeps.push(ms);
      t += ms;
    },
    sleeps,
  };
}

/** What the stand-in upstream does with a request: pass it on, or misbehave. */
export type Behaviour =
  'pass' | 'html' | 'bad-json' | '500' | 'cut' | 'hang' | 'schema' | 'foreign-cursor' | 'no-etag';

export interface SeenRequest {
  url: string;
  authorization: string | undefined;
  ifNoneMatch: string | undefined;
  status: number;
}

/**
 * A loopback HTTP server in front of an emutrack app: each request is passed to the app
 * (inject, without its Authorization, which is only recorded) unless `behave` says otherwise
 * for that request (counted from 1).
 */
export async function standInUpstream(
  app: ApiApp,
  behave: (n: number, url: string) => Behaviour = () => 'pass',
): Promise<{ url: string; seen: SeenRequest[]; close: () => Promise<void> }> {
  const seen: SeenRequest[] = [];
  const server = http.createServer((req, res) => {
    const n = seen.length + 1;
    const url = req.url ?? '/';
    const entry: SeenRequest = {
      url,
      authorization: req.headers.authorization,
      ifNoneMatch: req.headers['if-none-match'],
      status: 0,
    };
    seen.push(entry);
    const b = behave(n, url);
    const send = (status: number, type: string, body: string) => {
      entry.status = status;
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    };
    if (b === 'html') return send(200, 'text/html', '<!doctype html><h1>Maintenance</h1>');
    if (b === 'bad-json') return send(200, 'application/json', '{"ok":true,"data":{"items":[');
    if (b === '500') return send(500, 'text/plain', 'internal error');
    if (b === 'cut') return void req.socket.destroy();
    if (b === 'hang') return; // never answers; the puller's timeout gives up
    const headers: Record<string, string> = {};
    if (req.headers['if-none-match']) headers['if-none-match'] = req.headers['if-none-match'];
    void app.inject({ method: 'GET', url, headers }).then((r) => {
      let body = r.body;
      if (b === 'schema' || b === 'foreign-cursor') {
        const env = JSON.parse(body) as {
          data: { items: { emuId: unknown }[]; nextCursor: string };
        };
        if (b === 'schema') env.data.items[0]!.emuId = 'CRH2A-2010';
        else env.data.nextCursor = 'http://169.254.169.254/latest/meta-data';
        body = JSON.stringify(env);
      }
      entry.status = r.statusCode;
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(r.headers)) {
        if (typeof v === 'string' && k !== 'content-length' && k !== 'transfer-encoding')
          out[k] = v;
        else if (typeof v === 'number') out[k] = String(v);
      }
      if (b === 'no-etag') delete out.etag;
      delete out['content-length'];
      res.writeHead(r.statusCode, out);
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Every (day, train, unit) of a database's records over the fixture week, sorted. */
export async function pairs(db: Db): Promise<string[]> {
  const r = await db.query<{ p: string }>(
    `SELECT d.service_day || ' ' || d.train_code || ' ' || e.code AS p
       FROM daily_records d JOIN emus e ON e.id = d.emu_id
      WHERE d.service_day BETWEEN $1 AND $2 ORDER BY 1`,
    [FIRST_DAY, LAST_DAY],
  );
  return r.rows.map((x) => x.p);
}
