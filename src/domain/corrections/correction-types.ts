/**
 * Who made a correction: an operator at a shell, an administrator through the API, or a source
 * following its upstream (a record removed there retracts what it brought here).
 */
export type CorrectionActor =
  | { via: 'cli'; name: string }
  | { via: 'api'; userId: string; name: string }
  | { via: 'source'; name: string };

/** A signed-in account acting through the API or its pages, as the audit trail names it. */
export function accountActor(user: { userId: string; username: string }): CorrectionActor {
  return { via: 'api', userId: user.userId, name: user.username };
}

export type CorrectionKind = 'retract' | 'merge-emu' | 'undo' | 'report-accept' | 'report-refuse';

/** One row of the audit trail (`corrections`, migration 020), as listed. */
export interface Correction {
  id: number;
  kind: CorrectionKind;
  reason: string;
  actor: CorrectionActor;
  createdAt: Date;
  /** retract: the observations retracted (ids), and how they were named. */
  observationIds?: number[];
  source?: string;
  ref?: string;
  /** merge-emu: the unit merged into another (ids and codes as they are now). */
  fromEmuId?: number;
  fromEmuCode?: string;
  intoEmuId?: number;
  intoEmuCode?: string;
  /** report-accept, report-refuse: the sighting report decided (src/domain/reports). */
  reportId?: number;
  /** undo: the correction it undoes. */
  undoes?: number;
  /** The correction that undid this one, if any. */
  undoneBy?: number;
  /** The service days it marked stale. */
  serviceDays: number[];
}

/** The longest reason kept. */
export const MAX_REASON = 1000;
