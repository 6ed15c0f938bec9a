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

  // Train page (/train/{code})

  // Unit page (/emu/{code})

  // Fleet (/fleet, /fleet/depot/{depot})

  // Station page (/station/{name})

  // Days (/exports/daily, /day/{YYYYMMDD})

  // Offline and installing
  appName: 'emutrack: which EMU ran which train',
  appShortName: 'emutrack',

  // Account, sign-in, consent and operators' pages
};

/** What a catalogue gives: every key of the English one, each a string or a same-typed function. */
export type Messages = {
  [K in keyof typeof en]: (typeof en)[K] extends (...args: infer A) => string
    ? (...args: A) => string
    : string;
};
