import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentCirculation } from '../../src/domain/circulation/current-circulation.js';
import { CirculationPictures } from '../../src/domain/circulation-images/circulation-pictures.js';
import type { Db } from '../../src/shared/db/db.js';
import { migrate } from '../../src/shared/db/migrate.js';
import { createPgliteDb } from '../../src/shared/db/pglite-db.js';
import { predictTrain } from '../../src/domain/prediction/predict-train.js';
import { useTestDatabase } from '../helpers/test-db.js';
import { importTables, officialTable, seedLoop, TODAY } from './circulation-fixture.js';

const t = useTestDatabase();
let pglite: Db;

beforeAll(async () => {
  pglite = await createPgliteDb();
  await migrate(pglite);
});
afterAll(async () => {
  await pglite?.close();
});

/** The circulations, a prediction and a stored picture, as one database answers them. */
async function answersOf(db: Db) {
  await seedLoop(db);
  await importTables(db, [officialTable('G11#G12#0D6911#G31#G32')]);
  const inferred = await currentCirculation(db, { trainCode: 'G13', serviceDay: TODAY });
  const official = await currentCirculation(db, { trainCode: 'G12', serviceDay: TODAY });
  const prediction = await predictTrain(db, {
    trainCode: 'G13',
    serviceDay: TODAY + 1,
    asOfDay: TODAY - 1,
  });
  const pictures = new CirculationPictures(db, async (layout, format) =>
    Buffer.from(`${format} ${JSON.stringify(layout)}`),
  );
  const prepared = await pictures.prepare(inferred!, ['G13'], 'pdf');
  const document = await pictures.render(prepared);
  const cached = await pictures.prepare(inferred!, ['G13'], 'pdf');
  return {
    inferred,
    official,
    prediction: { ...prediction, candidates: prediction.candidates.map((c) => c.emuCode) },
    document,
    cachedId: cached.cached?.documentId,
    read: await pictures.read(document.documentId, 'pdf'),
  };
}

describe('current circulation, prediction and pictures on PGlite', () => {
  it('answer the same as on PostgreSQL', async () => {
    const onPostgres = await answersOf(t.current.db);
    const onPglite = await answersOf(pglite);
    expect(onPglite).toEqual(onPostgres);
    expect(onPostgres.inferred?.nodes).toHaveLength(4);
    expect(onPostgres.official?.metadata?.validationState).toBe('unmatched_official');
    expect(onPostgres.prediction.candidates).toEqual(['CR400AF-2001']);
    expect(onPostgres.cachedId).toBe(onPostgres.document.documentId);
    expect(onPostgres.read).toEqual(onPostgres.document);
  });
});
