/**
 * Re-captures the golden files of the differential harness from a real WordPress:
 *   npx tsx test/site/oracle/capture-wordpress.ts
 * runs setup-wordpress.sh (installs Debian's wordpress, apache2, libapache2-mod-php, php-mysql
 * when missing; a fresh site on 127.0.0.1:$WP_ORACLE_PORT, default 8089), seeds it through
 * REST, replays the corpus and writes test/site/oracle/golden/<category>.json.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { authorizationFor, callUrl, type OracleClient, type OracleUsers } from './oracle-client.js';
import { seedAndReplay, writeGolden } from './oracle-replay.js';

const here = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../scripts/wp-oracle',
);
const port = process.env.WP_ORACLE_PORT ?? '8089';
const origin = `http://127.0.0.1:${port}`;

function wordpressClient(users: OracleUsers): OracleClient {
  return async (call) => {
    const headers: Record<string, string> = {};
    const authorization = authorizationFor(call.caller, users);
    if (authorization) headers.authorization = authorization;
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${origin}${callUrl(call)}`, {
      method: call.method,
      headers,
      ...(call.body !== undefined ? { body: JSON.stringify(call.body) } : {}),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    const out: Record<string, string> = {};
    res.headers.forEach((v, k) => (out[k.toLowerCase()] = v));
    return { status: res.status, headers: out, body };
  };
}

const setup = execFileSync('bash', [path.join(here, 'setup-wordpress.sh')], {
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'inherit'],
});
const { users } = JSON.parse(setup.trim().split('\n').pop()!) as { users: OracleUsers };
const answers = await seedAndReplay(wordpressClient(users));
await writeGolden(answers);
console.log(`captured ${answers.size} answers from WordPress at ${origin}`);
