import { Command, InvalidArgumentError } from 'commander';
import { generateDataset, InvalidGenerateOptionError } from './write-dataset.js';
import { OutputDirectoryInUseError } from './outputs.js';
import { nextCommands } from './next-commands.js';

function integer(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a whole number');
  return Number(value);
}

function share(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1)
    throw new InvalidArgumentError('expected a share from 0 to 1, such as 0.2');
  return n;
}

function range(value: string): [number, number] {
  const m = /^(\d+)(?:-(\d+))?$/.exec(value.trim());
  if (!m) throw new InvalidArgumentError('expected a count or a range such as 1-3');
  const min = Number(m[1]);
  const max = Number(m[2] ?? m[1]);
  if (min < 1 || max > 20 || max < min)
    throw new InvalidArgumentError('expected 1 <= min <= max <= 20, such as 1-3');
  return [min, max];
}

const program = new Command()
  .name('generate')
  .description(
    'Writes a synthetic Chinese high-speed network: fleet, timetables, daily sightings and the ground truth they were drawn from.',
  )
  .requiredOption('--emus <n>', 'units in the fleet (1-10000)', integer)
  .requiredOption('--days <n>', 'service days to generate', integer)
  .requiredOption('--out <dir>', 'output directory (new, empty, or an earlier dataset)')
  .option('--seed <n>', 'random seed', integer, 1)
  .option('--start <YYYYMMDD>', 'first service day', '20260801')
  .option('--missing-rate <share>', 'share of sightings dropped', share, 0.2)
  .option('--run-unseen-rate <share>', 'share of runs with no sighting at all', share, 0)
  .option('--late-run-rate <share>', 'share of runs reported 2-8 hours late', share, 0)
  .option('--sightings-per-run <min-max>', 'sightings drawn per run, before drops', range, [3, 7])
  .option('--wrong-rate <share>', 'share of sightings naming a wrong unit', share, 0.01)
  .option('--bad-rate <share>', 'share of sightings followed by a malformed line', share, 0)
  .option('--duplicate-rate <share>', 'share of sightings written twice', share, 0.001)
  .option('--iso-time-rate <share>', 'share of observedAt written as ISO-8601', share, 0.03)
  .option('--service-date-rate <share>', 'share of sightings stating serviceDate', share, 0.1)
  .option('--quiet', 'no progress on stderr');

program.parse();
const opts = program.opts<{
  emus: number;
  days: number;
  out: string;
  seed: number;
  start: string;
  missingRate: number;
  runUnseenRate: number;
  lateRunRate: number;
  sightingsPerRun: [number, number];
  wrongRate: number;
  badRate: number;
  duplicateRate: number;
  isoTimeRate: number;
  serviceDateRate: number;
  quiet?: boolean;
}>();

const started = process.hrtime.bigint();
try {
  const manifest = await generateDataset({
    ...opts,
    onDay:
      opts.quiet || !process.stderr.isTTY
        ? undefined
        : ({ done, total, date }) => process.stderr.write(`\rday ${done}/${total} (${date})`),
  });
  if (!opts.quiet && process.stderr.isTTY) process.stderr.write('\n');
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const { counts } = manifest;
  console.log(
    `wrote ${opts.out}: ${manifest.emus} EMUs, ${counts.circulations} circulations, ${counts.trains} trains, ` +
      `${counts.records} records (${Math.round(counts.records / manifest.days)}/day), ` +
      `${counts.lines} observation lines in ${seconds.toFixed(1)} s`,
  );
  for (const line of nextCommands(opts.out, manifest.start, manifest.days)) console.log(line);
} catch (err) {
  if (err instanceof InvalidGenerateOptionError || err instanceof OutputDirectoryInUseError) {
    console.error(`generate: ${err.message}`);
    process.exitCode = 2;
  } else {
    throw err;
  }
}
