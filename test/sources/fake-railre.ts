import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One rail.re row as its API writes it. */
export interface RailreRow {
  date: string;
  emu_no: string;
  train_no: string;
}

/** What the fake answers for a train instead of its rows. */
export type Garbage = 'html' | 'object' | 'too-many' | '500' | 'bad-rows';

/**
 * A stand-in for rail.re's JSON API as its server defines it: GET /train/{G|D|C}{1-4 digits}
 * answers that train's rows (at most 30, newest first), GET /train/A,B,C the latest day's rows of
 * each, GET /emu/{code} a unit's rows. A train named in `garbage` makes any request naming it
 * answer that garbage instead.
 */
export async function fakeRailre(
  rows: readonly RailreRow[],
  garbage: Readonly<Record<string, Garbage>> = {},
): Promise<{ url: string; seen: string[]; close: () => Promise<void> }> {
  const seen: string[] = [];
  const newestFirst = [...rows].sort((a, b) => b.date.localeCompare(a.date));
  const ofTrain = (t: string) => newestFirst.filter((r) => r.train_no.split('/').includes(t));
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    seen.push(url);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const train = /^\/train\/([GDC]\d{1,4}(?:,[GDC]\d{1,4})*)$/.exec(url);
    const emu = /^\/emu\/([A-Z0-9]+)$/.exec(url);
    if (train) {
      const trains = train[1]!.split(',');
      const bad = trains.map((t) => garbage[t]).find((g) => g !== undefined);
      if (bad === 'html') {
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end('<!doctype html><title>rail.re</title><h1>502 Bad Gateway</h1>');
      }
      if (bad === 'object') return json(200, { error: 'not found' });
      if (bad === '500') return json(500, { error: 'internal' });
      if (bad === 'too-many')
        return json(
          200,
          Array.from({ length: 31 }, (_, i) => ({
            date: `2026-07-${String(i + 1).padStart(2, '0')}`,
            emu_no: 'CRH380AL2541',
            train_no: trains[0],
          })),
        );
      const good =
        trains.length === 1
          ? ofTrain(trains[0]!).slice(0, 30)
          : trains.flatMap((t) => {
              const all = ofTrain(t);
              return all.filter((r) => r.date === all[0]?.date);
            });
      if (bad === 'bad-rows')
        return json(200, [
          ...good,
          { date: '2026-13-45', emu_no: 'CRH380AL2541', train_no: trains[0] },
          { date: '2026-08-14', emu_no: '', train_no: trains[0] },
        ]);
      return json(200, good);
    }
    if (emu) return json(200, newestFirst.filter((r) => r.emu_no === emu[1]).slice(0, 30));
    json(404, { error: 'not found' });
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
