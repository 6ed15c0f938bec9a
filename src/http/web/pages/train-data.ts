import type { TrainCirculation } from '../../../domain/circulation/train-circulation.js';
import type { EmuModel } from '../../../domain/emus/emu-models.js';
import type { HistoryRecord } from '../../../domain/history/read-history.js';
import {
  noCirculation,
  predictTrainDays,
  type TrainPrediction,
} from '../../../domain/prediction/predict-train.js';
import {
  referenceModelsOfTrain,
  type ReferenceModel,
} from '../../../domain/records/read-reference-models.js';
import {
  readTimetables,
  type StoredTimetable,
} from '../../../domain/timetables/read-timetables.js';
import type { ApiServices } from '../../app-context.js';

/** Days predicted after today (the API answers up to PREDICTION_MAX_DAYS_AHEAD). */
export const PREDICTED_DAYS = 3;
/** Records in one page of the history list. */
export const HISTORY_PAGE_SIZE = 30;
/** More than any month's records can be (two units a day at most, corrections aside). */
const MONTH_LIMIT = 400;

/** A page of the history list: where it starts (the cursor of the API, "<serviceDay>:<id>"). */
export interface HistoryCursor {
  serviceDay: number;
  id: number;
  text: string;
}

/** A month, as the calendar shows it: its first and last service day. */
export interface MonthRange {
  year: number;
  month: number;
  firstDay: number;
  lastDay: number;
}

/** Everything the train page shows, read through the API's readers at one set of versions. */
export interface TrainPageData {
  trainCode: string;
  today: number;
  /** Today's records (none yet: empty). */
  todayRecords: HistoryRecord[];
  /** The records of the latest day that has any (absent: the train was never seen). */
  latest?: { serviceDay: number; records: HistoryRecord[] };
  /** The timetable in force today, as GetCurrentTrainTimetable reads it. */
  timetable?: StoredTimetable;
  referenceModels: ReferenceModel[];
  circulation?: TrainCirculation;
  predictions: TrainPrediction[];
  history: { records: HistoryRecord[]; more: boolean; cursor?: HistoryCursor };
  month: MonthRange;
  monthRecords: HistoryRecord[];
  /** Code and model of every unit the page names. */
  emus: Map<number, EmuModel>;
}

/**
 * The parts of a page version (`histories:0@12+timetables:0@3+...`, in the order of the train
 * page's versions: see train-page.ts): the kept data each reader holds is kept under its own
 * part. KeptHistories keeps a whole history under the histories' part, shared with
 * GetTrainHistory.
 */
function versionParts(version: string) {
  const [histories, timetables, referenceModels, emus, circulations] = version.split('+') as [
    string,
    string,
    string,
    string,
    string,
  ];
  return {
    histories,
    timetables,
    referenceModels: Number(referenceModels.slice(referenceModels.indexOf('@') + 1)),
    emus,
    circulations,
  };
}

/**
 * Reads the train page's data: the history pages as GetTrainHistory reads them (the kept
 * histories), today's timetable, reference models and circulation as GetCurrentTrainTimetable
 * reads them, and the predictions as GetTrainPrediction computes them.
 */
export async function readTrainPage(
  services: ApiServices,
  input: {
    trainCode: string;
    today: number;
    version: string;
    cursor?: HistoryCursor;
    month: MonthRange;
  },
): Promise<TrainPageData> {
  const { db, histories, config } = services;
  const { trainCode, today, month, cursor } = input;
  const versions = versionParts(input.version);
  // Four cuts of one history: read whole once (KeptHistories.trainPages), not four queries.
  const [[newest, todays, page, monthPage], inForce] = await Promise.all([
    histories.trainPages(trainCode, versions.histories, [
      { limit: 4 },
      { limit: 8, fromDay: today, toDay: today },
      {
        limit: HISTORY_PAGE_SIZE,
        ...(cursor ? { before: { serviceDay: cursor.serviceDay, id: cursor.id } } : {}),
      },
      { limit: MONTH_LIMIT, fromDay: month.firstDay, toDay: month.lastDay },
    ]),
    services.timetablesInForce.inForce(trainCode, today, versions.timetables),
  ]);
  const latestDay = newest.records[0]?.serviceDay;
  const latest =
    latestDay === undefined
      ? undefined
      : {
          serviceDay: latestDay,
          records: newest.records.filter((r) => r.serviceDay === latestDay),
        };
  const records = [
    ...todays.records,
    ...(latest?.records ?? []),
    ...page.records,
    ...monthPage.records,
  ];
  const codes = inForce ? inForce.allCodes : [trainCode];
  const [timetables, models, circulation, recordEmus] = await Promise.all([
    inForce ? readTimetables(db, [inForce.timetableId]) : undefined,
    services.referenceModels.models(
      inForce ? [inForce.timetableTrainCode, trainCode] : [trainCode],
      versions.referenceModels,
    ),
    services.circulations?.circulationOf(
      inForce
        ? { trainCode: inForce.timetableTrainCode, allCodes: inForce.allCodes, serviceDay: today }
        : { trainCode, allCodes: [trainCode], serviceDay: today },
      versions.circulations,
    ),
    // The records' units beside the rest; a predicted unit they do not name is read after.
    services.emuModels.models(
      records.map((r) => r.emuId),
      versions.emus,
    ),
  ]);
  const timetable = inForce ? timetables?.get(inForce.timetableId) : undefined;
  const days = Array.from({ length: PREDICTED_DAYS }, (_, i) => today + 1 + i);
  // No circulation for codes that include the train: no route of the current run holds it
  // (circulationOf looked), so the predictions are known without reading the route again.
  const predictions =
    services.circulations && !circulation && codes.includes(trainCode)
      ? noCirculation(trainCode, days, today)
      : await predictTrainDays(db, {
          trainCode,
          serviceDays: days,
          asOfDay: today,
          lookbackDays: config.CIRCULATION_WINDOW_DAYS,
        });
  const predictedIds = predictions.flatMap((p) => p.candidates.map((c) => c.emuId));
  const missing = predictedIds.filter((id) => !recordEmus.has(id));
  const emus =
    missing.length === 0
      ? recordEmus
      : new Map([...recordEmus, ...(await services.emuModels.models(missing, versions.emus))]);
  return {
    trainCode,
    today,
    todayRecords: [...todays.records],
    ...(latest ? { latest } : {}),
    ...(timetable ? { timetable } : {}),
    referenceModels: referenceModelsOfTrain(
      models,
      inForce ? [inForce.timetableTrainCode, trainCode] : [trainCode],
    ),
    ...(circulation ? { circulation } : {}),
    predictions,
    history: {
      records: [...page.records],
      more: page.more,
      ...(cursor ? { cursor } : {}),
    },
    month,
    monthRecords: [...monthPage.records],
    emus,
  };
}
