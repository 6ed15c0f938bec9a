import type { SearchItem, SearchItemType } from '../../domain/search/search-index.js';
import { ymdOfServiceDay } from '../../shared/time/service-day.js';

/*
 * The addresses of the web app's pages: the live service's paths (/train/{code}, /emu/{code},
 * /station/{name}, /exports/daily), so that links people already share keep working. Every
 * value in a path is percent-encoded here, once; the html tag then escapes the whole href.
 */

export const trainHref = (code: string): string => `/train/${encodeURIComponent(code)}`;
export const emuHref = (code: string): string => `/emu/${encodeURIComponent(code)}`;
export const stationHref = (name: string): string => `/station/${encodeURIComponent(name)}`;
export const dayHref = (serviceDay: number): string => `/day/${ymdOfServiceDay(serviceDay)}`;
export const depotHref = (depot: string): string => `/fleet/depot/${encodeURIComponent(depot)}`;

const HREF_OF: Record<SearchItemType, (code: string) => string> = {
  train: trainHref,
  emu: emuHref,
  station: stationHref,
};

/** The page of a search hit. */
export function searchItemHref(item: Pick<SearchItem, 'type' | 'code'>): string {
  return HREF_OF[item.type](item.code);
}
