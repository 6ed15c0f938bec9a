import { parseEmuCode } from '../emus/normalize-emu-code.js';
import { emuFormProblem, STRICT_EMU_FORMS } from '../emus/emu-forms.js';
import { checkTrain } from '../ingest/observation-record.js';
import {
  InvalidServiceDateError,
  serviceDayFromYmd,
  serviceDayOf,
} from '../../shared/time/service-day.js';
import { ReportError } from './report-error.js';
import { MAX_DAYS_BACK } from './report-types.js';

export interface ReportInput {
  trainCode: string;
  emuCode: string;
  date: string;
  observedAt?: string | number | undefined;
}

export interface CheckedReport {
  trainCode: string;
  trainCodes: string[];
  emuCode: string;
  model: string;
  serviceDay: number;
  observedAt: number | null;
}

const MAX_TEXT = 64;

/**
 * The rules a report must pass before anything is looked up: well-formed codes, a service day
 * no more than three days back and not in the future (Shanghai, by the injected clock), and a
 * time that falls on that day and has passed.
 */
export function checkReportInput(input: ReportInput, nowMs: number): CheckedReport {
  const trainRaw = String(input.trainCode ?? '').trim();
  if (trainRaw === '') throw new ReportError('invalid', 'trainCode', 'required');
  if (trainRaw.length > MAX_TEXT) throw new ReportError('invalid', 'trainCode', 'too long');
  const codes = checkTrain(trainRaw);
  if (!Array.isArray(codes)) throw new ReportError('invalid', 'trainCode', codes.reason);

  const emuRaw = String(input.emuCode ?? '').trim();
  if (emuRaw === '') throw new ReportError('invalid', 'emuCode', 'required');
  if (emuRaw.length > MAX_TEXT) throw new ReportError('invalid', 'emuCode', 'too long');
  let parsed;
  try {
    parsed = parseEmuCode(emuRaw);
  } catch (err) {
    throw new ReportError('invalid', 'emuCode', err instanceof Error ? err.message : 'malformed');
  }
  const bad = emuFormProblem(parsed, emuRaw, STRICT_EMU_FORMS);
  if (bad !== undefined) throw new ReportError('invalid', 'emuCode', bad);

  let serviceDay: number;
  try {
    serviceDay = serviceDayFromYmd(String(input.date ?? ''));
  } catch (err) {
    if (err instanceof InvalidServiceDateError)
      throw new ReportError('invalid', 'date', 'expected a real date YYYYMMDD');
    throw err;
  }
  const today = serviceDayOf(Math.floor(nowMs / 1000));
  if (serviceDay > today)
    throw new ReportError('invalid', 'date', 'a future day cannot be reported');
  if (serviceDay < today - MAX_DAYS_BACK)
    throw new ReportError('invalid', 'date', `more than ${MAX_DAYS_BACK} days back`);

  let observedAt: number | null = null;
  if (input.observedAt !== undefined && input.observedAt !== '') {
    const v = input.observedAt;
    const ms =
      typeof v === 'number' ? v * 1000 : /^\d+$/.test(v) ? Number(v) * 1000 : Date.parse(v);
    if (!Number.isFinite(ms))
      throw new ReportError('invalid', 'observedAt', 'expected ISO 8601 or Unix seconds');
    observedAt = Math.floor(ms / 1000);
    if (ms > nowMs + 5 * 60_000) throw new ReportError('invalid', 'observedAt', 'in the future');
    const day = serviceDayOf(observedAt);
    // A train of the evening before may still run after midnight.
    if (day !== serviceDay && day !== serviceDay + 1)
      throw new ReportError('invalid', 'observedAt', 'not on the reported service day');
  }
  return {
    trainCode: codes.join('/'),
    trainCodes: codes,
    emuCode: parsed.code,
    model: parsed.model,
    serviceDay,
    observedAt,
  };
}
