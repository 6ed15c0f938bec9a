/*
 * The web app's English strings. This file defines the catalogue's shape: the Chinese catalogue
 * (messages-zh.ts) must give every key, with the same parameters. Keys are grouped by the page
 * that uses them; a string with parameters is a function of them (never concatenated by pages).
 */
export const en = {
  // The frame of every page
  siteName: 'emutrack',
  skipToContent: 'Skip to content',
  mainNavigation: 'Main',
  navHome: 'Search',
  navFleet: 'Fleet',
  navDays: 'Days',
  navAccount: 'Account',
  navApi: 'API',
  footerLanguage: 'Language',
  footerTheme: 'Colours',
  themeAuto: 'Follow the system',
  themeLight: 'Light',
  themeDark: 'Dark',
  footerData: 'Service days run 00:00-24:00 Shanghai time (UTC+8).',
  footerDocs: 'Documentation',
  possiblyStale: 'You are offline: this copy was saved earlier and may be out of date.',
  pageDescription:
    'Which EMU ran which Chinese high-speed train on which day: trains, units, stations and days.',

  // Search (the box on every page, the home page, the results page)
  searchLabel: 'Train, unit or station',
  searchPlaceholder: 'G1, CR400AF-2001, 上海虹桥, shhq',
  searchButton: 'Search',
  searchHint: 'Press / to search from any page.',
  suggestionsLabel: 'Suggestions',
  suggestionCount: (n: number) => (n === 1 ? '1 suggestion' : `${n} suggestions`),
  resultsTitle: (q: string) => `Results for “${q}”`,
  resultsNone: (q: string) => `Nothing matches “${q}”.`,
  resultsTrains: 'Trains',
  resultsEmus: 'Units',
  resultsStations: 'Stations',
  kindTrain: 'Train',
  kindEmu: 'Unit',
  kindStation: 'Station',
  homeTitle: 'Which unit ran that train?',
  homeIntro:
    'Look up a train number, a unit or a station to see which EMU ran what, day by day, in Shanghai time.',
  homeLatestDay: 'Latest built day',
  homeLatestDayNone: 'No day has been built yet.',
  homeLatestCounts: (records: number, trains: number, emus: number) =>
    `${records} records: ${trains} trains run by ${emus} units`,
  homeLatestChanges: 'Latest changes',
  homeLatestChangesNone: 'No changes yet.',
  changeAdded: 'added',
  changeUpdated: 'updated',
  changeRemoved: 'removed',
  searchQueryTwice: 'give it once',
  searchQueryTooLong: (max: number) => `at most ${max} characters`,
  resultsCount: (n: number) => (n === 1 ? '1 match' : `${n} matches`),

  // Errors
  notFoundTitle: 'Page not found',
  notFoundText: 'There is no page at this address.',
  didYouMean: 'Did you mean',
  badRequestTitle: 'Something in the address is wrong',
  badRequestField: (field: string, why: string) => `${field}: ${why}`,
  tooManyTitle: 'Too many pages too fast',
  tooManyText: (seconds: number) =>
    `This address asked for pages faster than a person reads them. Try again in ${seconds} s.`,
  errorTitle: 'Something went wrong',
  errorText: 'The page could not be made. Try again in a moment.',
  backHome: 'Back to the search',

  // Shared words of the data pages
  serviceDay: 'Service day',
  train: 'Train',
  unit: 'Unit',
  units: 'Units',
  model: 'Model',
  bureau: 'Bureau',
  depot: 'Depot',
  position: 'Position',
  unknown: 'unknown',
  today: 'Today',
  latestDay: 'Latest day',
  previousPage: 'Previous',
  nextPage: 'Next',
  downloadCsv: 'Download CSV',
  from: 'From',
  to: 'To',
  statusNormal: 'observed',
  statusCorrected: 'corrected',
  weekdayShort: (index: number) => ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'][index] ?? '',
  weekdayLong: (index: number) =>
    ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'][index] ?? '',
  monthTitle: (year: number, month: number) =>
    `${['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'][month - 1] ?? ''} ${year}`,
  dateLong: (year: number, month: number, day: number) =>
    `${day} ${['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'][month - 1] ?? ''} ${year}`,
  previousMonth: 'Previous month',
  nextMonth: 'Next month',
  calendarKeys: 'In the calendar, the arrow keys move between days.',
  calendarLegend: 'Colours by model',

  // Train page (/train/{code})
  trainTitle: (code: string) => `Train ${code}`,
  trainDescription: (code: string) =>
    `Which units ran ${code}, its timetable, circulation, prediction and history.`,
  trainUnitsHeading: 'Units',
  trainToday: (day: string) => `Today (${day})`,
  trainLatest: (day: string) => `Latest day seen (${day})`,
  trainNotSeenToday: 'Not seen yet today.',
  trainNeverSeen: 'No unit has been recorded on this train.',
  positionSingle: 'single unit',
  positionCoupledUnknown: 'coupled, position unknown',
  positionFirst: 'coupled, front unit',
  positionSecond: 'coupled, rear unit',
  statusConfirmed: 'confirmed',
  statusFault: 'replaced a failed unit',
  statusSpare: 'hot spare',
  trainTimetableHeading: 'Timetable',
  trainTimetableNone: 'No timetable of this train is in force today.',
  trainTimetableCaption: (from: string, to: string) => `${from} to ${to}, today's times`,
  trainRun: (codes: string) => `Runs as ${codes}`,
  trainReferenceModels: 'Usual models',
  stopNo: 'No.',
  stopStation: 'Station',
  stopArrive: 'Arrives',
  stopDepart: 'Departs',
  stopPlatform: 'Platform',
  stopDistance: 'Distance',
  stopWicket: 'Gate',
  kilometres: (km: number) => `${km} km`,
  trainCirculationHeading: 'Circulation',
  trainCirculationNone: 'This train is in no circulation today.',
  circulationOfficial: 'Official table',
  circulationInferred: 'Inferred from the records',
  circulationState: 'Official table check',
  stateUnspecified: 'not checked yet',
  stateRaw: 'confirmed by the records as it stands',
  stateSplit: 'confirmed in parts',
  stateUnmatched: 'not confirmed by the records',
  circulationCaption: 'Trains in running order',
  circulationTrain: 'Train',
  circulationFrom: 'From',
  circulationTo: 'To',
  circulationPicture: 'Picture:',
  circulationPng: 'PNG image',
  circulationPdf: 'PDF document',
  trainPredictionHeading: 'Prediction',
  predictionCaption: 'Units likely to run the coming days',
  predictionDay: 'Day',
  predictionConfidence: 'Confidence',
  predictionLastSeen: 'Last seen',
  predictionLastSeenOn: (train: string, day: string) => `${train} on ${day}`,
  predictionNone: 'No prediction',
  predictionNoCirculation: 'The train is in no inferred circulation.',
  predictionNoRecentSighting: 'No unit of its circulation was seen recently.',
  predictionNoUnitDue: 'No unit of its circulation is due on that day.',
  trainHistoryHeading: 'History',
  historyCaption: 'Units by day, newest first',
  historyNone: 'No records.',
  historyOlder: 'Older',
  historyNewest: 'Newest',
  trainCalendarHeading: 'Month by month',
  calendarCaption: (month: string) => `Units of ${month}`,
  trainCsvHeading: 'Download the history',
  trainCsvHint: (days: number) => `Up to ${days} days, as CSV.`,
  csvFrom: 'First day',
  csvTo: 'Last day',
  csvBadDate: 'must be a date as YYYY-MM-DD',
  csvMissing: 'is required',
  csvFromAfterTo: 'must not be after the last day (to)',
  csvTooLong: (days: number) => `the range may span at most ${days} days`,
  badCursor: 'must be a page link of this history',
  badMonth: 'must be a month as YYYY-MM',

  // Unit page (/emu/{code})

  // Fleet (/fleet, /fleet/depot/{depot})

  // Station page (/station/{name})

  // Days (/exports/daily, /day/{YYYYMMDD})

  // Offline and installing

  // Account, sign-in, consent and operators' pages
};

/** What a catalogue gives: every key of the English one, each a string or a same-typed function. */
export type Messages = {
  [K in keyof typeof en]: (typeof en)[K] extends (...args: infer A) => string
    ? (...args: A) => string
    : string;
};
