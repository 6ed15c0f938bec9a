import path from 'node:path';
import { serviceDayFromYmd, ymdOfServiceDay } from '../shared/time/service-day.js';
import { OUTPUT_FILES } from './outputs.js';

/** A path as a shell word: bare when it is plainly safe, else single-quoted. */
function shellWord(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * What to run after `npm run generate`: load the dataset into emutrack (the database of
 * DATABASE_URL, or the embedded one), build and export its days, and look at the result.
 */
export function nextCommands(out: string, start: string, days: number): string[] {
  const dir = (file: string) => shellWord(path.join(out, file));
  const last = ymdOfServiceDay(serviceDayFromYmd(start) + days - 1);
  return [
    'next:',
    `  npx emutrack import-fleet ${dir(OUTPUT_FILES.fleet)}`,
    `  npx emutrack ingest-timetables ${dir(OUTPUT_FILES.timetables)}`,
    `  npx emutrack ingest ${dir(OUTPUT_FILES.observations)}`,
    `  npx emutrack replay --from ${start} --to ${last}`,
    `  npx emutrack status`,
    `  npx emutrack export ${last}`,
  ];
}
