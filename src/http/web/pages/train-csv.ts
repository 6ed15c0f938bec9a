import { readEmuModels } from '../../../domain/emus/emu-models.js';
import { DAILY_EXPORT_HEADER } from '../../../domain/exports/daily-export-csv.js';
import type { HistoryRecord } from '../../../domain/history/read-history.js';
import { readTimetables } from '../../../domain/timetables/read-timetables.js';
import { clockTimeOfOffset } from '../../../domain/timetables/timetable-time.js';
import type { ApiServices } from '../../app-context.js';
import { dateText } from './train-views.js';

/** The CSV's header: the service day, then the daily export's columns. */
export const TRAIN_HISTORY_CSV_HEADER = ['serviceDate', ...DAILY_EXPORT_HEADER];

/** Records read per page of the range (a year of a coupled train is about 730). */
const READ_PAGE = 1000;

/**
 * A train's history over [from, to] as CSV rows (header first): one row per record, oldest day
 * first and, within a day, by unit code (the daily export's order within a train), with the
 * daily export's columns: the stations and clock times of the record's timetable (the one in
 * force on its day, set by the build), empty without one. Read as GetTrainHistory reads a
 * range (the kept histories, at the histories' `version`).
 */
export async function readTrainHistoryCsv(
  services: ApiServices,
  input: { trainCode: string; from: number; to: number; version: string },
): Promise<string[][]> {
  const { trainCode, from, to, version } = input;
  const records: HistoryRecord[] = [];
  let before: { serviceDay: number; id: number } | undefined;
  for (;;) {
    const page = await services.histories.trainPage(trainCode, version, {
      limit: READ_PAGE,
      fromDay: from,
      toDay: to,
      ...(before ? { before } : {}),
    });
    records.push(...page.records);
    const last = page.records[page.records.length - 1];
    if (!page.more || !last) break;
    before = { serviceDay: last.serviceDay, id: last.id };
  }
  const [emus, timetables] = await Promise.all([
    readEmuModels(
      services.db,
      records.map((r) => r.emuId),
    ),
    readTimetables(
      services.db,
      records.flatMap((r) => (r.timetableId === null ? [] : [r.timetableId])),
    ),
  ]);
  const rows = records.map((r) => {
    const t = r.timetableId === null ? undefined : timetables.get(r.timetableId);
    return [
      dateText(r.serviceDay),
      r.trainCode,
      emus.get(r.emuId)?.code ?? '',
      t?.startStation ?? '',
      t?.endStation ?? '',
      t ? clockTimeOfOffset(t.startOffset) : '',
      t ? clockTimeOfOffset(t.endOffset) : '',
    ];
  });
  rows.sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : a[2]! < b[2]! ? -1 : 1));
  return [TRAIN_HISTORY_CSV_HEADER, ...rows];
}
