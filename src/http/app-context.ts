import type { FastifyInstance, RawServerDefault } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../shared/config/config.js';
import type { Db } from '../shared/db/db.js';
import type { Logger } from '../shared/log/logger.js';
import type { QuotaCosts } from './quota/quota-costs.js';
import type { Clock } from './quota/quota-store.js';
import type { EmuCodeCache } from '../domain/emus/emu-code-cache.js';
import type { EmuAliasCache } from '../domain/emus/emu-alias-cache.js';
import type { KeptHistories } from '../domain/history/kept-histories.js';
import type { PageCache } from './api/page-cache.js';
import type { TimetableSummaryCache } from '../domain/timetables/timetable-summary-cache.js';
import type { TrainCirculationProvider } from '../domain/circulation/current-circulation-provider.js';
import type { SearchService } from '../domain/search/search-service.js';
import type { StationBoardCache } from '../domain/timetables/station-board-cache.js';
import type { ReferenceModelCache } from '../domain/records/reference-model-cache.js';
import type { EmuModelCache } from '../domain/emus/emu-model-cache.js';
import type { TimetablesInForceCache } from '../domain/timetables/timetables-in-force-cache.js';
import type { DailyRecordDays } from '../domain/records/daily-record-days.js';
import type { RecordItemJson } from './api/daily-records-json.js';

/*
 * What the parts of the API process share: the app's type and the services its routes are
 * given. Apart from the composition root that makes them (api/app.ts, buildApp), so that the
 * parts it registers (oauth/, account/, ops/, the routes) import this and never the root.
 */

/** The app buildApp makes (its logger is the pino instance it was given). */
export type ApiApp = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, Logger>;

/** What the route handlers share; made once per app by buildApp. */
export interface ApiServices {
  config: Config;
  db: Db;
  costs: QuotaCosts;
  emuCodes: EmuCodeCache;
  /** Written EMU code -> emuId, for the operations and pages that name a unit in their path. */
  emuAliases: EmuAliasCache;
  /** Trains' and units' histories, kept whole per version (GetTrainHistory, GetEmuHistory, pages). */
  histories: KeptHistories;
  timetables: TimetableSummaryCache;
  clock: Clock;
  /** Rendered pages kept under the data version they show (page-cache.ts). */
  pages: PageCache;
  /** The lookup index of trains, units and stations (the API's /search and the web app's box). */
  search: SearchService;
  /** Station boards kept while the coverage does not change (the API's board and the station page). */
  stationBoards: StationBoardCache;
  /** Trains' reference models kept under their version (station boards, API and pages). */
  referenceModels: ReferenceModelCache;
  /** Units' codes and models kept under the register's version (the pages that name units). */
  emuModels: EmuModelCache;
  /** The timetable in force for every number of a day, kept under the timetables' version. */
  timetablesInForce: TimetablesInForceCache;
  /** Service days' records kept per version (GetDailyRecords, the day and station pages). */
  dailyRecords: DailyRecordDays<RecordItemJson>;
  /** Fills GetCurrentTrainTimetable's `circulation`; absent = the field is left out. */
  circulations?: TrainCirculationProvider;
}

/** What every route plugin of the API is registered with. */
export interface RouteOptions {
  services: ApiServices;
}
