import { CronExpressionParser } from 'cron-parser';
import { EmutrackError } from '../../shared/errors/emutrack-error.js';
import { SERVICE_TIME_ZONE } from '../../shared/time/service-day.js';
import { normalizeTrainCode } from '../trains/train-code.js';

/** The kinds of source: another emutrack server's days or its change feed, rail.re's API. */
export const SOURCE_KINDS = ['v2', 'railre', 'v2-feed'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

/** A source as configured (what `emutrack source add` takes). */
export interface SourceSettings {
  name: string;
  kind: SourceKind;
  /** The server's base URL: its API is at `{baseUrl}/api/v2`. No trailing slash. */
  baseUrl: string;
  /** The NAME of the environment variable holding the API key; null = anonymous. */
  apiKeyEnv: string | null;
  /** A cron pattern (Asia/Shanghai) for the scheduler; null = pulled by hand only. */
  schedule: string | null;
  /** Requests per second at most. */
  rate: number;
  /** Weight of the source's sightings (kept for the build; 1 = as any other). */
  trust: number;
  /** The trains a railre source asks for; null = those in force in the timetables. */
  trains: string[] | null;
}

/** A setting refused: `option` names it (`--url`, `--rate`, ...). */
export class SourceSettingError extends EmutrackError {
  constructor(
    readonly option: string,
    reason: string,
  ) {
    super('source_setting_invalid', `${option}: ${reason}`);
  }
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,47}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

export function checkSourceName(name: string): string {
  if (!NAME.test(name))
    throw new SourceSettingError(
      'NAME',
      `expected 1-48 letters, digits, ".", "_" or "-", starting with a letter or digit (got ${JSON.stringify(name.slice(0, 60))})`,
    );
  return name;
}

export function checkKind(kind: string): SourceKind {
  if (!(SOURCE_KINDS as readonly string[]).includes(kind))
    throw new SourceSettingError(
      '--kind',
      `unknown kind ${JSON.stringify(kind.slice(0, 40))} (kinds: ${SOURCE_KINDS.join(', ')})`,
    );
  return kind as SourceKind;
}

/**
 * A base URL: http or https, a host, no credentials, query or fragment (a key goes in the
 * environment, never in the URL, which is printed and stored). A trailing slash is dropped.
 */
export function checkBaseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new SourceSettingError('--url', `not a URL (got ${JSON.stringify(text.slice(0, 200))})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new SourceSettingError('--url', `expected http:// or https:// (got ${url.protocol})`);
  if (url.username !== '' || url.password !== '')
    throw new SourceSettingError(
      '--url',
      'must not carry a user or password: put the API key in an environment variable and name it with --api-key-env',
    );
  if (url.search !== '' || url.hash !== '')
    throw new SourceSettingError('--url', 'must not have a query or a fragment');
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

export function checkApiKeyEnv(name: string): string {
  if (!ENV_NAME.test(name))
    throw new SourceSettingError(
      '--api-key-env',
      `expected the NAME of an environment variable (letters, digits, "_"), not its value`,
    );
  return name;
}

/** A cron pattern read in Asia/Shanghai, as the worker's schedules are. */
export function checkSchedule(pattern: string): string {
  try {
    CronExpressionParser.parse(pattern, { tz: SERVICE_TIME_ZONE }).next();
  } catch (err) {
    throw new SourceSettingError(
      '--every',
      `not a cron pattern (${(err as Error).message}) (got ${JSON.stringify(pattern.slice(0, 80))})`,
    );
  }
  return pattern;
}

function positiveNumber(option: string, text: string | number, allowZero: boolean): number {
  const n = typeof text === 'number' ? text : Number(text);
  if (typeof text === 'string' && !/^\s*\d+(\.\d+)?\s*$/.test(text))
    throw new SourceSettingError(option, `expected a number (got ${JSON.stringify(text)})`);
  if (!Number.isFinite(n) || n < 0 || (!allowZero && n === 0) || n > 1_000_000)
    throw new SourceSettingError(
      option,
      `expected a number ${allowZero ? '>= 0' : '> 0'} (got ${JSON.stringify(String(text))})`,
    );
  return n;
}

/** Requests per second: > 0. */
export function checkRate(text: string | number): number {
  return positiveNumber('--rate', text, false);
}

/** Trust weight: >= 0. */
export function checkTrust(text: string | number): number {
  return positiveNumber('--trust', text, true);
}

/** The train numbers rail.re's API answers for: G, D or C and 1-4 digits. */
export const RAILRE_TRAIN = /^[GDC][1-9]\d{0,3}$/;
const MAX_TRAINS = 5000;

/** A comma-separated list of train numbers rail.re knows (G1,D3125), normalised, deduplicated. */
export function checkTrains(text: string): string[] {
  const trains = new Set<string>();
  for (const part of text.split(',')) {
    const written = part.trim();
    let code: string;
    try {
      code = normalizeTrainCode(written);
    } catch {
      code = '';
    }
    if (!RAILRE_TRAIN.test(code))
      throw new SourceSettingError(
        '--trains',
        `expected train numbers G, D or C and 1-4 digits, separated by commas (got ${JSON.stringify(written.slice(0, 20))})`,
      );
    trains.add(code);
  }
  if (trains.size > MAX_TRAINS)
    throw new SourceSettingError('--trains', `at most ${MAX_TRAINS} trains (got ${trains.size})`);
  return [...trains];
}

/** Checks every setting of a new source; the first bad one is a SourceSettingError. */
export function checkSourceSettings(input: {
  name: string;
  kind: string;
  url: string;
  apiKeyEnv?: string | undefined;
  every?: string | undefined;
  rate?: string | number | undefined;
  trust?: string | number | undefined;
  trains?: string | undefined;
}): SourceSettings {
  const name = checkSourceName(input.name);
  const kind = checkKind(input.kind);
  if (input.trains !== undefined && kind !== 'railre')
    throw new SourceSettingError('--trains', 'only a railre source asks for trains');
  return {
    name,
    kind,
    baseUrl: checkBaseUrl(input.url),
    apiKeyEnv: input.apiKeyEnv === undefined ? null : checkApiKeyEnv(input.apiKeyEnv),
    schedule: input.every === undefined ? null : checkSchedule(input.every),
    rate: input.rate === undefined ? 1 : checkRate(input.rate),
    trust: input.trust === undefined ? 1 : checkTrust(input.trust),
    trains: input.trains === undefined ? null : checkTrains(input.trains),
  };
}
