import os from 'node:os';
import { InvalidArgumentError, type Command } from 'commander';
import {
  mergeEmu,
  retractObservations,
  undoCorrection,
  type AppliedCorrection,
} from '../domain/corrections/apply-corrections.js';
import type { Correction, CorrectionActor } from '../domain/corrections/correction-types.js';
import { listCorrections } from '../domain/corrections/list-corrections.js';
import { isEmutrackError } from '../shared/errors/emutrack-error.js';
import { ymdOfServiceDay } from '../shared/time/service-day.js';
import { CliError, out, withAppContext } from './cli-context.js';

/** A refused correction is one line and a non-zero exit. */
function asCliError(err: unknown): never {
  if (isEmutrackError(err, 'correction_refused')) throw new CliError(err.message);
  throw err;
}

function positiveInt(value: string): number {
  if (!/^[1-9]\d{0,17}$/.test(value))
    throw new InvalidArgumentError('expected a positive whole number');
  return Number(value);
}

const BY_HELP = 'who is recorded as making it (default: the account running the command)';

/** The operator at the shell: --by, else the account running the command. */
function operator(by: string | undefined): CorrectionActor {
  let name = by?.trim();
  if (!name) {
    try {
      name = os.userInfo().username;
    } catch {
      name = process.env.USER ?? 'unknown';
    }
  }
  return { via: 'cli', name };
}

function days(applied: AppliedCorrection): string {
  return applied.serviceDays.length === 0
    ? 'no day to rebuild'
    : `days marked stale (rebuilt by the worker): ${applied.serviceDays.map(ymdOfServiceDay).join(', ')}`;
}

function describe(c: Correction): string {
  const who =
    c.actor.via === 'api'
      ? `${c.actor.name} (API)`
      : c.actor.via === 'source'
        ? `source ${c.actor.name}`
        : `${c.actor.name} (CLI)`;
  let what: string;
  if (c.kind === 'retract') {
    const named = c.source !== undefined ? ` (source ${c.source}, ref ${c.ref})` : '';
    what = `retract observation${c.observationIds!.length > 1 ? 's' : ''} ${c.observationIds!.join(', ')}${named}`;
  } else if (c.kind === 'merge-emu') {
    what = `merge ${c.fromEmuCode} into ${c.intoEmuCode}`;
  } else {
    what = `undo correction ${c.undoes}`;
  }
  const undone = c.undoneBy !== undefined ? ` [undone by ${c.undoneBy}]` : '';
  return `${c.id}  ${c.createdAt.toISOString()}  ${who}  ${what}${undone}: ${c.reason}`;
}

/**
 * `emutrack correct retract|merge-emu|undo|list`: corrections with an audit trail
 * (src/domain/corrections). Each marks the days it touches stale; the worker rebuilds them.
 */
export function registerCorrectionsCommands(program: Command): void {
  const correct = program
    .command('correct')
    .description(
      'correct the record: retract sightings, merge a phantom unit, undo, list (audited)',
    );

  correct
    .command('retract')
    .description(
      'retract a sighting (by observation id, or by source + ref): it no longer counts anywhere',
    )
    .option('--observation <id>', 'the observation id', positiveInt)
    .option('--source <source>', 'the source of the sighting (with --ref)')
    .option('--ref <ref>', "the source's own id of the sighting (with --source)")
    .requiredOption('--reason <text>', 'why (kept in the audit trail)')
    .option('--by <name>', BY_HELP)
    .option('--json', 'print the result as JSON')
    .action(
      async (opts: {
        observation?: number;
        source?: string;
        ref?: string;
        reason: string;
        by?: string;
        json?: boolean;
      }) => {
        const byId = opts.observation !== undefined;
        const byRef = opts.source !== undefined || opts.ref !== undefined;
        if (byId === byRef)
          throw new CliError('give either --observation ID, or --source S and --ref R');
        if (byRef && (opts.source === undefined || opts.ref === undefined))
          throw new CliError('--source and --ref go together');
        const target = byId
          ? { observationId: opts.observation! }
          : { source: opts.source!, ref: opts.ref! };
        const applied = await withAppContext(({ db }) =>
          retractObservations(db, target, opts.reason, operator(opts.by)).catch(asCliError),
        );
        if (opts.json) return out(JSON.stringify(applied));
        out(
          `correction ${applied.correctionId}: retracted observation(s) ${applied.observationIds.join(', ')}; ${days(applied)}`,
        );
      },
    );

  correct
    .command('merge-emu')
    .description(
      'merge a unit into another (a phantom into the real one): its sightings and records move, its codes find the other',
    )
    .argument('<from>', 'the unit merged (any of its codes)')
    .argument('<into>', 'the unit it is merged into (any of its codes)')
    .requiredOption('--reason <text>', 'why (kept in the audit trail)')
    .option('--by <name>', BY_HELP)
    .option('--json', 'print the result as JSON')
    .action(
      async (from: string, into: string, opts: { reason: string; by?: string; json?: boolean }) => {
        const applied = await withAppContext(({ db }) =>
          mergeEmu(db, from, into, opts.reason, operator(opts.by)).catch(asCliError),
        );
        if (opts.json) return out(JSON.stringify(applied));
        out(`correction ${applied.correctionId}: merged ${from} into ${into}; ${days(applied)}`);
      },
    );

  correct
    .command('undo')
    .description('undo a correction: restore a retraction, or take a merge back (itself audited)')
    .argument('<correctionId>', 'the correction to undo', positiveInt)
    .option('--reason <text>', 'why (default: "undo of correction N")')
    .option('--by <name>', BY_HELP)
    .option('--json', 'print the result as JSON')
    .action(async (id: number, opts: { reason?: string; by?: string; json?: boolean }) => {
      const applied = await withAppContext(({ db }) =>
        undoCorrection(db, id, opts.reason ?? `undo of correction ${id}`, operator(opts.by)).catch(
          asCliError,
        ),
      );
      if (opts.json) return out(JSON.stringify(applied));
      out(`correction ${applied.correctionId}: undid correction ${id}; ${days(applied)}`);
    });

  correct
    .command('list')
    .description('the corrections, newest first: who, when, what, why')
    .option('--limit <n>', 'how many (default 50)', positiveInt)
    .option('--json', 'print them as JSON')
    .action(async (opts: { limit?: number; json?: boolean }) => {
      const list = await withAppContext(({ db }) =>
        listCorrections(db, { limit: opts.limit ?? 50 }),
      );
      if (opts.json) return out(JSON.stringify(list));
      if (list.length === 0) return out('no corrections');
      for (const c of list) out(describe(c));
    });
}
