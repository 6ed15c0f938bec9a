import type { Queryable } from '../../shared/db/db.js';

/** One model of a train's reference models (see reference-models.ts for what weighted means). */
export interface ReferenceModel {
  model: string;
  weightedShare: number;
}

/**
 * The stored reference models (train_reference_models, as of the last refresh) of the given
 * train numbers, largest share first (then by model). Numbers without any are left out.
 */
export async function readReferenceModels(
  db: Queryable,
  trainCodes: readonly string[],
): Promise<Map<string, ReferenceModel[]>> {
  const out = new Map<string, ReferenceModel[]>();
  if (trainCodes.length === 0) return out;
  const r = await db.query<{ train_code: string; model: string; weighted_share: number }>(
    `SELECT train_code, model, weighted_share FROM train_reference_models
      WHERE train_code = ANY ($1::text[])
      ORDER BY train_code, weighted_share DESC, model`,
    [[...new Set(trainCodes)]],
  );
  for (const row of r.rows) {
    let models = out.get(row.train_code);
    if (!models) out.set(row.train_code, (models = []));
    models.push({ model: row.model, weightedShare: row.weighted_share });
  }
  return out;
}

/**
 * The reference models of a train that carries several numbers: those of the first number in
 * `preferred` that has any (a paired run's records, and so its models, may sit under either).
 */
export function referenceModelsOfTrain(
  models: ReadonlyMap<string, ReferenceModel[]>,
  preferred: readonly string[],
): ReferenceModel[] {
  for (const code of preferred) {
    const found = models.get(code);
    if (found) return found;
  }
  return [];
}
