import path from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { detectObservationFormat } from '../../../src/domain/ingest/formats/formats.js';
import { ingestObservations } from '../../../src/domain/ingest/ingest-observations.js';
import { useTestDatabase } from '../../helpers/test-db.js';
import { cli } from '../../helpers/run-cli.js';
import { useFixtureDir } from './format-test-kit.js';

const t = useTestDatabase();
const files = useFixtureDir();

beforeAll(() => {
  process.env.DATABASE_URL = t.current.url;
  process.env.LOG_LEVEL = 'silent';
});

const SIGHTING = JSON.stringify({
  observedAt: '2026-08-12T09:00:00+08:00',
  trainCode: 'G1',
  emuCode: 'CR400AF-2001',
  source: 'report',
});

describe('format detection', () => {
  it('goes by the content, never the name', async () => {
    const cases: [string, string, string][] = [
      ['sightings.csv', `\uFEFF\n  ${SIGHTING}\n`, 'ndjson'],
      ['empty.csv', '', 'ndjson'],
      // A broken first line is a rejected line of NDJSON, not an unknown format.
      ['broken-first.txt', `oops, not JSON\n\n${SIGHTING}\n`, 'ndjson'],
      ['rows.json', 'date,emu_no,train_no\n2026-08-12,CRH380AL2541,G1\n', 'railre-csv'],
      [
        'rows.ndjson',
        ' [\n  {"date": "2026-08-12", "emu_no": "CRH380AL2541", "train_no": "G1"}]',
        'railre-json',
      ],
      ['none.csv', '[]', 'railre-json'],
      [
        'day.txt',
        'trainCode,emuCode,startStation,endStation,startTime,endTime\n',
        'daily-export-csv',
      ],
      ['board.jsonl', 'source,emuCode,trainCode,observedAt\n', 'csv'],
      ['reordered', 'train_no,date,emu_no\n', 'railre-csv'],
    ];
    for (const [name, content, format] of cases) {
      const file = await files.write(name, content);
      expect((await detectObservationFormat(file, name)).name, name).toBe(format);
    }
  });

  it('refuses an unknown format in one line naming the file, and ingests the other files', async () => {
    const unknown: [string, string][] = [
      ['notes.csv', 'when,train,unit\n1,G1,CR400AF-2001\n'],
      ['allocation.json', '[{"emuCode": "CR400AF-2001", "model": "CR400AF"}]'],
      ['binary.ndjson', '\u0000\u0001PK'],
      ['plain.json', 'hello'],
    ];
    for (const [name, content] of unknown) {
      const file = await files.write(name, content);
      const err = await detectObservationFormat(file, name).catch((e: unknown) => e as Error);
      expect(err, name).toBeInstanceOf(Error);
      expect((err as Error).message, name).toMatch(
        new RegExp(`^${name.replace('.', '\\.')}: unknown format \\(first line `),
      );
      expect((err as Error).message).not.toContain('\n');
    }
    const good = await files.write('good.csv', `${SIGHTING}\n`);
    const r = await ingestObservations(t.current.db, path.dirname(good));
    const byName = Object.fromEntries(r.files.map((f) => [f.file, f]));
    expect(byName['good.csv']).toMatchObject({ format: 'ndjson', accepted: 1 });
    expect(byName['notes.csv']!.error).toMatch(/^notes\.csv: unknown format/);
    expect(byName['allocation.json']!.error).toMatch(/^allocation\.json: unknown format/);
  });
});

describe('emutrack ingest', () => {
  it("says each file's format, and takes --date for a daily export named without its day", async () => {
    const file = await files.write(
      'export-a.csv',
      'trainCode,emuCode,startStation,endStation,startTime,endTime\nG41,CR400AF-2041,,,,',
    );
    const refused = await cli('ingest', file);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('export-a.csv: UNREADABLE: export-a.csv: a daily export');
    const dated = await cli('ingest', file, '--date', '20260812');
    expect(dated.code).toBe(0);
    expect(dated.stdout).toContain(
      'export-a.csv: read 1, accepted 1, duplicate 0, rejected 0 (daily-export-csv)',
    );
    const bad = await cli('ingest', file, '--date', '2026-08-12');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--date/);
    vi.restoreAllMocks();
  });
});
