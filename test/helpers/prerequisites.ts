import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';

/**
 * What the test suite needs on the machine besides Node, Postgres and Redis: Debian's chromium
 * (the browser tests drive it through playwright-core, never a browser download) and promtool
 * from Debian's prometheus package (the alert rules are checked by it). Checked once before
 * anything runs (`npm test`'s pretest and vitest's global setup), so a run never half-fails:
 * either everything is there, or it is installed now (root with apt-get), or the run stops at
 * once with one line saying what to run.
 */
export interface Prerequisite {
  /** What the tests call it. */
  name: string;
  /** Where the tests look for it. */
  path: string;
  /** The Debian package that installs it at that path. */
  debianPackage: string;
  /** The variable that points the tests elsewhere (a browser or promtool installed otherwise). */
  pathVariable: string;
}

export function prerequisites(env: NodeJS.ProcessEnv = process.env): Prerequisite[] {
  return [
    {
      name: 'chromium',
      path: env.CHROMIUM_PATH || '/usr/bin/chromium',
      debianPackage: 'chromium',
      pathVariable: 'CHROMIUM_PATH',
    },
    {
      name: 'promtool',
      path: env.PROMTOOL_PATH || '/usr/bin/promtool',
      debianPackage: 'prometheus',
      pathVariable: 'PROMTOOL_PATH',
    },
  ];
}

/** What the plan needs to know about the machine. */
export interface Host {
  isExecutable(path: string): boolean;
  isRoot: boolean;
  hasAptGet: boolean;
}

export type PrerequisitePlan =
  | { action: 'ready' }
  | { action: 'install'; packages: string[]; missing: Prerequisite[] }
  | { action: 'refuse'; message: string };

/** The decision alone (unit-tested): nothing to do, install these packages, or stop with a line. */
export function planPrerequisites(wanted: Prerequisite[], host: Host): PrerequisitePlan {
  const missing = wanted.filter((p) => !host.isExecutable(p.path));
  if (missing.length === 0) return { action: 'ready' };
  const packages = [...new Set(missing.map((p) => p.debianPackage))];
  if (host.isRoot && host.hasAptGet) return { action: 'install', packages, missing };
  return { action: 'refuse', message: refusal(missing, packages, host) };
}

function refusal(missing: Prerequisite[], packages: string[], host: Host): string {
  const what = missing.map((p) => `${p.name} (${p.path})`).join(', ');
  const command = host.hasAptGet
    ? `run: sudo apt-get install -y --no-install-recommends ${packages.join(' ')}`
    : `install Debian's ${packages.join(', ')} package${packages.length > 1 ? 's' : ''}`;
  const vars = missing.map((p) => p.pathVariable).join('/');
  return `emutrack tests need ${what}: ${command} (or set ${vars} to an installed copy), then run the tests again`;
}

export function currentHost(): Host {
  return {
    isExecutable(path) {
      try {
        accessSync(path, constants.X_OK);
        return true;
      } catch {
        return false;
      }
    },
    isRoot: typeof process.getuid === 'function' && process.getuid() === 0,
    hasAptGet: spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0,
  };
}

export class PrerequisiteError extends Error {
  override name = 'PrerequisiteError';
}

/**
 * Carries the plan out: installs with apt-get (its output shown, as a person would see it) and
 * checks the paths again afterwards; throws a PrerequisiteError whose message is the one line.
 */
export function ensurePrerequisites(
  wanted: Prerequisite[] = prerequisites(),
  host: Host = currentHost(),
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): void {
  const plan = planPrerequisites(wanted, host);
  if (plan.action === 'ready') return;
  if (plan.action === 'refuse') throw new PrerequisiteError(plan.message);
  log(
    `emutrack tests: installing ${plan.packages.join(', ')} for ${plan.missing.map((p) => p.name).join(', ')} (apt-get)`,
  );
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const run = (args: string[]) =>
    spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env }).status === 0;
  const installed =
    run(['update', '-qq']) &&
    run(['install', '-y', '-qq', '--no-install-recommends', ...plan.packages]);
  const still = wanted.filter((p) => !host.isExecutable(p.path));
  if (!installed || still.length > 0) {
    throw new PrerequisiteError(
      `emutrack tests: apt-get install ${plan.packages.join(' ')} did not provide ${still.map((p) => p.path).join(', ') || 'everything'}; install it by hand and run the tests again`,
    );
  }
}
