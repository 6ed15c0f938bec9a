/**
 * The events a subscription can ask for, by the kind of thing it follows. What each means is in
 * docs/taking-part.md (Alerts); alert-matching.ts derives them from the change feed.
 */
export const ALERT_EVENTS = {
  train: ['train.rareUnit', 'train.unitChanged', 'train.corrected'],
  emu: ['emu.seen', 'emu.movedDepot', 'emu.corrected'],
  station: ['station.changed', 'station.corrected'],
} as const;

export type AlertKind = keyof typeof ALERT_EVENTS;
export type AlertEvent = (typeof ALERT_EVENTS)[AlertKind][number];
export const ALERT_KINDS = Object.keys(ALERT_EVENTS) as AlertKind[];
export const ALERT_CHANNELS = ['email', 'webpush', 'webhook'] as const;
export type AlertChannel = (typeof ALERT_CHANNELS)[number];

/** What an alert says, whatever the channel. */
export interface AlertData {
  event: AlertEvent;
  kind: AlertKind;
  /** The train code, unit code or station name followed. */
  code: string;
  /** YYYYMMDD of the service day (absent for a depot move). */
  date?: string;
  trainCode?: string;
  emuCode?: string;
  /** Depot move. */
  from?: string;
  to?: string;
  /** Units of the train that day after the change (unit changed). */
  units?: string[];
  /** Whether the unit was added to the train or taken off it (station changed). */
  change?: 'added' | 'removed';
}

/** One line in words (English and Chinese) of what happened, for a mail or a notification. */
export function describeAlert(d: AlertData): { en: string; zh: string } {
  const day = d.date ? `${d.date.slice(0, 4)}-${d.date.slice(4, 6)}-${d.date.slice(6)}` : '';
  switch (d.event) {
    case 'train.rareUnit':
      return {
        en: `${d.trainCode} ran with ${d.emuCode} on ${day}, a unit it had not run in 30 days`,
        zh: `${d.trainCode} 于 ${day} 由 ${d.emuCode} 担当（30 天内未担当过）`,
      };
    case 'train.unitChanged':
      return {
        en: `${d.trainCode}'s unit changed on ${day}: now ${(d.units ?? []).join(', ') || 'none'}`,
        zh: `${d.trainCode} 于 ${day} 换车：现为 ${(d.units ?? []).join('、') || '无'}`,
      };
    case 'emu.seen':
      return {
        en: `${d.emuCode} was seen on ${day} running ${d.trainCode}`,
        zh: `${d.emuCode} 于 ${day} 担当 ${d.trainCode}`,
      };
    case 'emu.movedDepot':
      return {
        en: `${d.emuCode} moved from depot ${d.from || '?'} to ${d.to || '?'}`,
        zh: `${d.emuCode} 配属由 ${d.from || '?'} 变更为 ${d.to || '?'}`,
      };
    case 'station.changed':
      return d.change === 'removed'
        ? {
            en: `At ${d.code} on ${day}: ${d.trainCode} no longer runs with ${d.emuCode}`,
            zh: `${d.code} ${day}：${d.trainCode} 不再由 ${d.emuCode} 担当`,
          }
        : {
            en: `At ${d.code} on ${day}: ${d.trainCode} now runs with ${d.emuCode}`,
            zh: `${d.code} ${day}：${d.trainCode} 担当车组变更为 ${d.emuCode}`,
          };
    default:
      return {
        en: `A correction on ${day} changed ${d.trainCode} / ${d.emuCode}`,
        zh: `${day} 的更正涉及 ${d.trainCode} / ${d.emuCode}`,
      };
  }
}
