import { randomBytes } from 'node:crypto';
import { issueCredential } from '../domain/accounts/credentials.js';
import { defaultKeyScopes } from '../domain/accounts/scopes.js';
import { createUser, findUserByName } from '../domain/accounts/users.js';
import { accountSettingsFromConfig } from '../domain/accounts/account-settings.js';
import type { Config } from '../shared/config/config.js';
import type { Db } from '../shared/db/db.js';

/** The demo's own user: its key lets the demo's curl lines run without the anonymous quota. */
export const DEMO_USER = 'demo';

/**
 * An API key for the demo user (made once, a new key per demo run, 30 days). Anonymous callers
 * have QUOTA_ANONYMOUS_CAPACITY tokens (25); the calls the demo lists cost more (a day's records,
 * a rendered picture), so the next call would be a 429. The user's password is random and never
 * shown: the key is what the demo hands over (revoke it with `emutrack key revoke`).
 */
export async function makeDemoKey(
  db: Db,
  config: Config,
  now: Date = new Date(),
): Promise<{ secret: string; revokeId: string }> {
  const settings = accountSettingsFromConfig(config);
  const user =
    (await findUserByName(db, DEMO_USER)) ??
    (await createUser(
      db,
      { username: DEMO_USER, password: randomBytes(24).toString('base64url'), role: 'user' },
      { scrypt: settings.scrypt },
    ));
  const { secret, credential } = await issueCredential(
    db,
    {
      userId: user.userId,
      issuer: 'api',
      name: 'npm run demo',
      scopes: [...defaultKeyScopes(user.role)],
      expiresAt: new Date(now.getTime() + 30 * 86_400_000),
      dailyTokenLimit: settings.dailyTokenLimit,
    },
    { now, maxLifetimeSeconds: settings.maxLifetimeSeconds },
  );
  return { secret, revokeId: credential.revokeId };
}

export interface NextStepsInput {
  port: number;
  /** QUOTA_ANONYMOUS_CAPACITY. */
  anonymousCapacity: number;
  exportDir: string;
  rejected: number;
  key: { secret: string; revokeId: string };
  /** Today and the day before, YYYYMMDD: the demo's data ends today. */
  today: string;
  yesterday: string;
  picture: string;
}

/** The web app's address (npm start serves it on PORT). */
export function webAddress(port: number): string {
  return `http://localhost:${port}/`;
}

/**
 * The demo's closing lines: the web app's pages first (what a person opens), then where the
 * files are, then the API calls to try, with the demo's key.
 */
export function demoNextSteps(input: NextStepsInput): string[] {
  const web = webAddress(input.port);
  const api = `http://localhost:${input.port}/api/v2`;
  const auth = `-H "Authorization: Bearer $EMUTRACK_KEY"`;
  return [
    '',
    `The web app (npm start), in a browser: ${web}`,
    `  a train:          ${web}train/G1`,
    `  a unit:           ${web}emu/CR400AF-2001`,
    `  a station:        ${web}station/${encodeURIComponent('上海虹桥')}`,
    `  the days:         ${web}exports/daily`,
    '',
    'Where to look:',
    `  CSV exports:      ${input.exportDir}/`,
    `  rejected lines:   npx emutrack rejects  (${input.rejected} lines with file, line, field and reason; npx emutrack status counts them)`,
    `  one day's CSV:    npx emutrack export ${input.yesterday}`,
    '',
    `The read API (npm start). Anonymous callers get ${input.anonymousCapacity} quota tokens, fewer than these calls`,
    `cost, so the demo made an API key for user ${DEMO_USER} (revoke it: npx emutrack key revoke ${input.key.revokeId}):`,
    `  export EMUTRACK_KEY=${input.key.secret}`,
    `  daily records:    curl ${auth} '${api}/records/daily?date=${input.today}'`,
    `  histories:        curl ${auth} '${api}/history/train/G1'  (docs: the other endpoints)`,
    `  circulations (today, ${input.today}):`,
    `    inferred:       curl ${auth} '${api}/timetable/train/G7363/current'`,
    `    official table: curl ${auth} '${api}/timetable/train/D7404/current'`,
    `    its picture:    curl ${auth} -o D7404.png '${api}/timetable/train/D7404/circulation/image?binary=true'  (drawn here too: ${input.picture})`,
    `    a prediction:   curl ${auth} '${api}/prediction/train/D7405'`,
  ];
}
