import type { Messages } from './messages-en.js';

/* The web app's Chinese strings (the default language): one per key of messages-en.ts. */
export const zh: Messages = {
  // The frame of every page
  siteName: 'emutrack',
  skipToContent: '跳到正文',
  mainNavigation: '主导航',
  navHome: '查询',
  navFleet: '车组',
  navDays: '日期',
  navAccount: '账户',
  navApi: 'API',
  footerLanguage: '语言',
  footerTheme: '配色',
  themeAuto: '跟随系统',
  themeLight: '浅色',
  themeDark: '深色',
  footerData: '运营日按上海时间 (UTC+8) 0:00–24:00 计。',
  footerDocs: '文档',
  possiblyStale: '当前离线：这是之前保存的页面，可能已过时。',
  pageDescription: '哪一列动车组担当了哪一趟高铁车次：按车次、车组、车站和日期查询。',

  // Search
  searchLabel: '车次、车组或车站',
  searchPlaceholder: 'G1、CR400AF-2001、上海虹桥、shhq',
  searchButton: '查询',
  searchHint: '在任何页面按 / 键即可查询。',
  suggestionsLabel: '建议',
  suggestionCount: (n: number) => `${n} 条建议`,
  resultsTitle: (q: string) => `“${q}”的查询结果`,
  resultsNone: (q: string) => `没有与“${q}”匹配的结果。`,
  resultsTrains: '车次',
  resultsEmus: '车组',
  resultsStations: '车站',
  kindTrain: '车次',
  kindEmu: '车组',
  kindStation: '车站',
  homeTitle: '这趟车是哪列车组跑的？',
  homeIntro: '输入车次、车组号或车站，按上海时间逐日查看动车组担当情况。',
  homeLatestDay: '最新生成的运营日',
  homeLatestDayNone: '还没有生成任何运营日。',
  homeLatestCounts: (records: number, trains: number, emus: number) =>
    `${records} 条记录：${emus} 列车组担当 ${trains} 个车次`,
  homeLatestChanges: '最近的变更',
  homeLatestChangesNone: '暂无变更。',
  changeAdded: '新增',
  changeUpdated: '更新',
  changeRemoved: '删除',

  // Errors
  notFoundTitle: '页面不存在',
  notFoundText: '这个地址没有页面。',
  didYouMean: '你是不是要找',
  badRequestTitle: '地址中有错误',
  badRequestField: (field: string, why: string) => `${field}：${why}`,
  tooManyTitle: '请求过于频繁',
  tooManyText: (seconds: number) =>
    `此地址请求页面的速度超过了正常阅读的速度，请 ${seconds} 秒后再试。`,
  errorTitle: '出错了',
  errorText: '页面生成失败，请稍后再试。',
  backHome: '返回查询',

  // Shared words of the data pages
  serviceDay: '运营日',
  train: '车次',
  unit: '车组',
  units: '车组',
  model: '车型',
  bureau: '路局',
  depot: '动车所',
  position: '编组位置',
  unknown: '未知',
  today: '今天',
  latestDay: '最新运营日',
  previousPage: '上一页',
  nextPage: '下一页',
  downloadCsv: '下载 CSV',
  from: '从',
  to: '到',
  statusNormal: '已观测',
  statusCorrected: '已更正',

  // Train page (/train/{code})

  // Unit page (/emu/{code})

  // Fleet (/fleet, /fleet/depot/{depot})

  // Station page (/station/{name})

  // Days (/exports/daily, /day/{YYYYMMDD})

  // Offline and installing
  appName: 'emutrack：动车组担当查询',
  appShortName: 'emutrack',

  // Account, sign-in, consent and operators' pages
};
