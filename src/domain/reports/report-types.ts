export type ReportStatus = 'pending' | 'accepted' | 'refused';

/** One sighting report, as the API and the moderators' queue show it. */
export interface SightingReport {
  id: number;
  trainCode: string;
  emuCode: string;
  /** YYYYMMDD. */
  date: string;
  serviceDay: number;
  /** Unix seconds, when the reporter said. */
  observedAt: number | null;
  status: ReportStatus;
  reason: string | null;
  needsModerator: boolean;
  corroboratedBy: 'sighting' | 'report' | 'moderator' | null;
  reporter: { userId: string; username: string; corroborated: number; refused: number };
  photoRef: string | null;
  qrText: string | null;
  createdAt: Date;
}

/** Reports per account and per address per Shanghai day. */
export interface ReportLimits {
  perUser: number;
  perAddress: number;
}

export const DEFAULT_REPORT_LIMITS: ReportLimits = { perUser: 20, perAddress: 40 };

/** How far back a report may go, in service days. */
export const MAX_DAYS_BACK = 3;

/** An account younger than this is new: its reports wait for a moderator, and corroborate nothing. */
export const NEW_ACCOUNT_MS = 24 * 3600 * 1000;
