import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retractObservations } from '../../src/domain/corrections/apply-corrections.js';
import { importFleet } from '../../src/domain/emus/import-fleet.js';
import { buildDailyRecords } from '../../src/domain/records/build-daily-records.js';
import { serviceDayFromYmd } from '../../src/shared/time/service-day.js';
import { AlertDispatcher } from '../../src/worker/alert-dispatcher.js';
import { makeUser } from '../api/helpers/accounts.js';
import { testConfig } from '../api/helpers/api-harness.js';
import { MailCatcher } from '../helpers/mail-catcher.js';
import { ingestSightings, sightings } from '../helpers/observations.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { ingestTimetableLines, timetable } from '../helpers/timetables.js';

const t = useTestDatabase();
const mail = new MailCatcher();
const NOW = new Date('2026-10-06T04:00:00Z');
let dispatcher: AlertDispatcher;
let dir: string;

beforeAll(async () => {
  await mail.start();
  dir = await mkdtemp(path.join(os.tmpdir(), 'emutrack-alert-events-'));
  dispatcher = new AlertDispatcher({
    db: t.current.db,
    logger: pino({ level: 'silent' }),
    config: testConfig({
      SMTP_URL: `smtp://127.0.0.1:${mail.port}`,
      PUBLIC_URL: 'https://emutrack.example',
      JOB_BACKOFF_MS: '10',
    }),
  });
});
afterAll(async () => {
  await dispatcher?.stop();
  await mail.close();
  await rm(dir, { recursive: true, force: true });
});

/** An active e-mail subscription (verified already) of a new user. */
async function subscribe(kind: 'emu' | 'station', code: string, address: string, events: string[]) {
  const user = await makeUser(t.current.db, 'follower');
  const emu =
    kind === 'emu'
      ? (await t.current.db.query<{ id: number }>('SELECT id FROM emus WHERE code = $1', [code]))
          .rows[0]!.id
      : null;
  await t.current.db.query(
    `INSERT INTO alert_subscriptions (public_id, user_id, kind, code, emu_id, channel, address,
       events, status, unsubscribe_token_hash)
     VALUES ($1, $2, $3, $4, $5, 'email', $6, $7, 'active', $8)`,
    [
      `als_${randomBytes(6).toString('hex')}`,
      user.userId,
      kind,
      code,
      emu,
      address,
      events,
      randomBytes(16),
    ],
  );
}

async function fleet(csv: string): Promise<void> {
  const file = path.join(dir, `fleet-${randomBytes(4).toString('hex')}.csv`);
  await writeFile(file, csv);
  const r = await importFleet(t.current.db, file);
  expect(r.rejected).toBe(0);
}

describe('alerts of a unit and of a station', () => {
  it('mails a unit’s followers its move to another depot, once, and nothing for other changes', async () => {
    await fleet('emu_code,model,depot\nCR400AF-7301,CR400AF,北京南动车所\n');
    await subscribe('emu', 'CR400AF-7301', 'depot@example.com', ['emu.movedDepot']);

    // Another column, or the same depot again: no move.
    await fleet('emu_code,model,depot,alias\nCR400AF-7301,CR400AF,北京南动车所,7301号\n');
    await dispatcher.runOnce(NOW);
    expect(mail.to('depot@example.com')).toHaveLength(0);

    await fleet('emu_code,model,depot\nCR400AF-7301,CR400AF,上海虹桥动车所\n');
    await dispatcher.runOnce(NOW);
    await dispatcher.runOnce(NOW);
    const mails = mail.to('depot@example.com');
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toContain('CR400AF-7301');
    expect(mails[0]!.text).toContain(
      'CR400AF-7301 moved from depot 北京南动车所 to 上海虹桥动车所',
    );
    expect(mails[0]!.text).toContain('https://emutrack.example/emu/CR400AF-7301');
  });

  it('mails a station’s followers a unit added to a train calling there, and one taken off it', async () => {
    await fleet('emu_code,model\nCR400AF-7401,CR400AF\n');
    await ingestTimetableLines(t.current.db, [
      timetable('G7401', '20261001', [
        ['甲站', undefined, '08:00'],
        ['乙站', '09:00', '09:02'],
        ['丙站', '10:00', undefined],
      ]),
    ]);
    await subscribe('station', '乙站', 'station@example.com', ['station.changed']);
    await subscribe('station', '丁站', 'elsewhere@example.com', ['station.changed']);

    const seen = sightings('20261005', 'G7401', 'CR400AF-7401', 2);
    await ingestSightings(t.current.db, seen);
    await buildDailyRecords(t.current.db, serviceDayFromYmd('20261005'));
    await dispatcher.runOnce(NOW);
    const added = mail.to('station@example.com');
    expect(added).toHaveLength(1);
    expect(added[0]!.text).toContain('At 乙站 on 2026-10-05: G7401 now runs with CR400AF-7401');
    expect(added[0]!.text).toContain(
      `https://emutrack.example/station/${encodeURIComponent('乙站')}`,
    );

    // The sightings retracted and the day rebuilt: the unit is off the train, and the station's
    // followers are told so (the removed record's timetable is the one it had when it was added).
    for (const s of seen)
      await retractObservations(
        t.current.db,
        { source: s.source, ref: s.ref! },
        'a misread board',
        {
          via: 'cli',
          name: 'test',
        },
      );
    await buildDailyRecords(t.current.db, serviceDayFromYmd('20261005'));
    await dispatcher.runOnce(NOW);
    const removed = mail.to('station@example.com').slice(1);
    expect(removed).toHaveLength(1);
    expect(removed[0]!.text).toContain(
      'At 乙站 on 2026-10-05: G7401 no longer runs with CR400AF-7401',
    );
    expect(mail.to('elsewhere@example.com')).toHaveLength(0);
  });
});
