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

  // Unit page (/emu/{code})

  // Fleet (/fleet, /fleet/depot/{depot})

  // Station page (/station/{name})
  stationTitle: (name: string) => `${name} station`,
  stationDateLabel: 'Service day',
  stationShowDate: 'Show',
  stationPreviousDay: 'Previous day',
  stationNextDay: 'Next day',
  stationOtherDays: 'Other days',
  stationBoardCaption: (date: string) => `Trains stopping on ${date}, by time`,
  stationArrive: 'Arrives',
  stationDepart: 'Departs',
  stationPlatform: 'Platform',
  stationRoute: 'Route',
  stationReferenceModel: 'Usual model',
  stationUnitsRan: 'Unit that ran',
  stationStartsHere: 'starts here',
  stationEndsHere: 'ends here',
  stationNextDayTime: (time: string) => `${time} (next day)`,
  stationNone: 'No train stops here on this day.',
  stationNotSeen: 'not seen',

  // Days (/exports/daily, /day/{YYYYMMDD})
  daysTitle: 'Built days',
  daysIntro:
    'Each day that has been built: its records, and its CSV file (one row per train and unit).',
  daysNone: 'No day has been built yet.',
  daysMonthCaption: (month: string) => `Built days of ${month}`,
  daysCalendarLabel: 'records',
  daysOtherMonths: 'Other months',
  daysCsvOf: (date: string) => `CSV of ${date}`,
  daysRecordsOf: (date: string) => `Records of ${date}`,
  dayTitle: (date: string) => `Records of ${date}`,
  dayCount: (trains: number, records: number) =>
    `${trains} ${trains === 1 ? 'train' : 'trains'}, ${records} ${records === 1 ? 'record' : 'records'}`,
  dayNone: 'This day has been built, and no train was recorded on it.',
  dayNoneMatch: 'No train of this day matches these filters.',
  dayNotBuiltTitle: 'Day not built yet',
  dayNotBuilt: (date: string) => `${date} has not been built yet: its records come once it is.`,
  dayAllDays: 'All built days',
  dayFilters: 'Filters',
  dayFilterTrain: 'Train type',
  dayFilterAll: 'All',
  dayFilterApply: 'Filter',
  dayFilterClear: 'Clear the filters',
  dayRoute: 'Route',
  dayStatus: 'Status',
  dayTableCaption: (date: string) => `Trains of ${date} and the units that ran them`,
  route: (from: string, to: string) => `${from} → ${to}`,
  statusConfirmed: 'confirmed',
  statusUnconfirmed: 'unconfirmed',
  statusFront: 'front unit',
  statusRear: 'rear unit',
  statusCoupled: 'coupled',
  statusReplacement: 'replaced a failed unit',
  pagerLabel: 'Pages',
  pageOf: (page: number, pages: number) => `Page ${page} of ${pages}`,
  invalidDate: 'must be a calendar date written YYYYMMDD (or YYYY-MM-DD)',
  invalidPage: (max: number) => `must be a whole number from 1 to ${max}`,
  pastLastPage: (pages: number) =>
    `is past the last page (${pages} ${pages === 1 ? 'page' : 'pages'})`,
  invalidText: (max: number) => `must be given once, at most ${max} characters`,
  invalidTrainType: 'must be the letters a train number starts with (G, D, C, ...)',
  invalidYearMonth: 'must be given with the other (year and month), as whole numbers',

  // Offline and installing

  // Account, sign-in, consent and operators' pages
};

/** What a catalogue gives: every key of the English one, each a string or a same-typed function. */
export type Messages = {
  [K in keyof typeof en]: (typeof en)[K] extends (...args: infer A) => string
    ? (...args: A) => string
    : string;
};
