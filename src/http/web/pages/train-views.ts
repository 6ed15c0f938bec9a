import type { TrainCirculation } from '../../../domain/circulation/train-circulation.js';
import type { EmuModel } from '../../../domain/emus/emu-models.js';
import type { HistoryRecord } from '../../../domain/history/read-history.js';
import type { TrainPrediction } from '../../../domain/prediction/predict-train.js';
import {
  STATUS_CONFIRMED,
  STATUS_COUPLED_FIRST,
  STATUS_COUPLED_SECOND,
  STATUS_COUPLED_UNKNOWN_POSITION,
  STATUS_FAULT,
  STATUS_SPARE,
} from '../../../domain/records/build-daily-records.js';
import type { StoredTimetable } from '../../../domain/timetables/read-timetables.js';
import { clockTimeOfOffset } from '../../../domain/timetables/timetable-time.js';
import type { TrainCode } from '../../../domain/trains/train-code.js';
import {
  midnightOfServiceDay,
  serviceDayOf,
  ymdOfServiceDay,
} from '../../../shared/time/service-day.js';
import { html, type Html } from '../../html/html.js';
import type { Messages } from '../i18n/messages-en.js';
import { emuHref, stationHref, trainHref } from '../page-links.js';
import { modelTone } from '../views/month-calendar.js';
import type { WebView } from '../web-request.js';
import type { TrainPageData } from './train-data.js';
import { reflowTable } from '../../html/reflow-table.js';

/** A service day as a reader writes a date: 2026-08-16. */
export function dateText(serviceDay: number): string {
  const ymd = ymdOfServiceDay(serviceDay);
  return `${ymd.slice(0, 4)}-${ymd.slice(4, 6)}-${ymd.slice(6, 8)}`;
}

/** Unix seconds as a Shanghai clock time of their own service day (HH:MM). */
function clockOf(unixSeconds: number): string {
  return clockTimeOfOffset(unixSeconds - midnightOfServiceDay(serviceDayOf(unixSeconds)));
}

const codeText = (c: TrainCode) => `${c.prefix}${c.number}`;

/** The formation (0x06 bits) of a record's status, in words. */
export function positionText(t: Messages, status: number): string {
  switch (status & 0x06) {
    case STATUS_COUPLED_UNKNOWN_POSITION:
      return t.positionCoupledUnknown;
    case STATUS_COUPLED_FIRST:
      return t.positionFirst;
    case STATUS_COUPLED_SECOND:
      return t.positionSecond;
    default:
      return t.positionSingle;
  }
}

function statusChips(t: Messages, status: number): Html {
  const chips: string[] = [];
  if (status & STATUS_CONFIRMED) chips.push(t.statusConfirmed);
  if (status & STATUS_FAULT) chips.push(t.statusFault);
  if (status & STATUS_SPARE) chips.push(t.statusSpare);
  return html`${chips.map((c) => html` <span class="chip">${c}</span>`)}`;
}

/** A model as a chip with its colour (the calendar's), the name always in words. */
export function modelChip(model: string): Html {
  return html`<span class="chip"
    ><span class="tone-swatch tone-${modelTone(model)}" aria-hidden="true"></span>${model}</span
  >`;
}

/** A unit's link with its model. */
export function unitLink(emus: Map<number, EmuModel>, emuId: number): Html {
  const emu = emus.get(emuId);
  if (!emu) return html`<span>#${emuId}</span>`;
  return html`<a href="${emuHref(emu.code)}">${emu.code}</a
    >${emu.model ? html` ${modelChip(emu.model)}` : ''}`;
}

/** Records of one day, front unit first (the records' status says the position). */
function byPosition(records: readonly HistoryRecord[]): HistoryRecord[] {
  return [...records].sort((a, b) => (a.status & 0x06) - (b.status & 0x06) || a.id - b.id);
}

function unitsOfDay(view: WebView, data: TrainPageData, records: readonly HistoryRecord[]): Html {
  const { t } = view;
  return html`<ul class="plain-list units">
    ${byPosition(records).map(
      (r) =>
        html`<li>
          ${unitLink(data.emus, r.emuId)}
          <span class="muted">${positionText(t, r.status)}</span>${statusChips(t, r.status)}
        </li>`,
    )}
  </ul>`;
}

export function unitsSection(view: WebView, data: TrainPageData): Html {
  const { t } = view;
  const latest = data.latest;
  const today =
    data.todayRecords.length > 0
      ? unitsOfDay(view, data, data.todayRecords)
      : html`<p class="muted">${t.trainNotSeenToday}</p>`;
  const earlier =
    latest && latest.serviceDay !== data.today
      ? html`<h3>${t.trainLatest(dateText(latest.serviceDay))}</h3>
          ${unitsOfDay(view, data, latest.records)}`
      : !latest
        ? html`<p>${t.trainNeverSeen}</p>`
        : '';
  return html`<section class="card" aria-labelledby="units-h">
    <h2 id="units-h">${t.trainUnitsHeading}</h2>
    <h3>${t.trainToday(dateText(data.today))}</h3>
    ${today} ${earlier}
  </section>`;
}

function stopRow(t: Messages, stop: StoredTimetable['stops'][number]): Html {
  const time = (offset: number | null) => (offset === null ? '' : clockTimeOfOffset(offset));
  return html`<tr>
    <td data-label="${t.stopNo}">${stop.stationNo}</td>
    <th scope="row" data-label="${t.stopStation}">
      <a href="${stationHref(stop.stationName)}">${stop.stationName}</a>
    </th>
    <td data-label="${t.stopArrive}">${time(stop.arriveOffset)}</td>
    <td data-label="${t.stopDepart}">${time(stop.departOffset)}</td>
    <td data-label="${t.stopPlatform}">${stop.platformNo ?? ''}</td>
    <td data-label="${t.stopDistance}">
      ${stop.distance === null ? '' : t.kilometres(stop.distance)}
    </td>
    <td data-label="${t.stopWicket}">${stop.wicket}</td>
  </tr>`;
}

export function timetableSection(view: WebView, data: TrainPageData): Html {
  const { t } = view;
  const tt = data.timetable;
  const models =
    data.referenceModels.length > 0
      ? html`<p>
          ${t.trainReferenceModels}:
          ${data.referenceModels.map((m) => html` ${modelChip(m.model)}`)}
        </p>`
      : '';
  if (!tt) {
    return html`<section class="card printable" aria-labelledby="timetable-h">
      <h2 id="timetable-h">${t.trainTimetableHeading}</h2>
      <p>${t.trainTimetableNone}</p>
      ${models}
    </section>`;
  }
  const run = tt.allCodes.length > 1 ? html`<p>${t.trainRun(tt.allCodes.join(' / '))}</p>` : '';
  return html`<section class="card printable" aria-labelledby="timetable-h">
    <h2 id="timetable-h">${t.trainTimetableHeading}</h2>
    <dl class="facts">
      <dt>${t.bureau}</dt>
      <dd>${tt.bureauName}</dd>
      <dt>${t.depot}</dt>
      <dd>${tt.trainDepartment}</dd>
    </dl>
    ${run} ${models}
    ${reflowTable({
      className: 'timetable',
      caption: t.trainTimetableCaption(tt.startStation, tt.endStation),
      columns: [
        t.stopNo,
        t.stopStation,
        t.stopArrive,
        t.stopDepart,
        t.stopPlatform,
        t.stopDistance,
        t.stopWicket,
      ],
      rows: tt.stops.map((s) => stopRow(t, s)),
    })}
  </section>`;
}

function stateText(t: Messages, circulation: TrainCirculation): string | undefined {
  switch (circulation.metadata?.validationState) {
    case 'raw_official':
      return t.stateRaw;
    case 'split_official':
      return t.stateSplit;
    case 'unmatched_official':
      return t.stateUnmatched;
    case 'unspecified':
      return t.stateUnspecified;
    default:
      return circulation.source === 'official' ? t.stateUnspecified : undefined;
  }
}

/** The API's picture of the circulation (GetTrainCirculationImage, the document itself). */
export function circulationImageHref(trainCode: string, format: 'png' | 'pdf'): string {
  return `/api/v2/timetable/train/${encodeURIComponent(trainCode)}/circulation/image?format=${format}&binary=true`;
}

export function circulationSection(view: WebView, data: TrainPageData): Html {
  const { t } = view;
  const c = data.circulation;
  if (!c || c.nodes.length === 0) {
    return html`<section class="card printable" aria-labelledby="circulation-h">
      <h2 id="circulation-h">${t.trainCirculationHeading}</h2>
      <p>${t.trainCirculationNone}</p>
    </section>`;
  }
  const state = stateText(t, c);
  const rows = c.nodes.map((node) => {
    const codes = node.allCodes.map(codeText);
    const mine = codes.includes(data.trainCode);
    const links = codes.map(
      (code, i) =>
        html`${i > 0 ? ' / ' : ''}<a
            href="${trainHref(code)}"
            ${mine ? html`aria-current="page"` : ''}
            >${code}</a
          >`,
    );
    return html`<tr ${mine ? html`class="current"` : ''}>
      <th scope="row" data-label="${t.circulationTrain}">${links}</th>
      <td data-label="${t.circulationFrom}">
        ${node.startStation} <span class="mono">${clockOf(node.startAt)}</span>
      </td>
      <td data-label="${t.circulationTo}">
        ${node.endStation} <span class="mono">${clockOf(node.endAt)}</span>
      </td>
    </tr>`;
  });
  return html`<section class="card printable" aria-labelledby="circulation-h">
    <h2 id="circulation-h">${t.trainCirculationHeading}</h2>
    <dl class="facts">
      <dt>${t.circulationState}</dt>
      <dd>
        ${c.source === 'official' ? t.circulationOfficial : t.circulationInferred}${
          state ? html`: ${state}` : ''
        }
      </dd>
    </dl>
    ${reflowTable({
      className: 'circulation',
      caption: t.circulationCaption,
      columns: [t.circulationTrain, t.circulationFrom, t.circulationTo],
      rows: rows,
    })}
    <p class="no-print">
      ${t.circulationPicture}
      <a href="${circulationImageHref(data.trainCode, 'png')}" type="image/png"
        >${t.circulationPng}</a
      >
      ·
      <a href="${circulationImageHref(data.trainCode, 'pdf')}" type="application/pdf"
        >${t.circulationPdf}</a
      >
    </p>
  </section>`;
}

function reasonText(t: Messages, prediction: TrainPrediction): string {
  switch (prediction.reason?.code) {
    case 'no_circulation':
      return t.predictionNoCirculation;
    case 'no_recent_sighting':
      return t.predictionNoRecentSighting;
    default:
      return t.predictionNoUnitDue;
  }
}

export function predictionSection(view: WebView, data: TrainPageData): Html {
  const { t } = view;
  const rows = data.predictions.flatMap((p) => {
    const day = dateText(p.serviceDay);
    if (p.candidates.length === 0) {
      return [
        html`<tr>
          <th scope="row" data-label="${t.predictionDay}">${day}</th>
          <td data-label="${t.unit}">${t.predictionNone}</td>
          <td data-label="${t.predictionConfidence}"></td>
          <td data-label="${t.predictionLastSeen}">${reasonText(t, p)}</td>
        </tr>`,
      ];
    }
    return p.candidates.map(
      (c) =>
        html`<tr>
          <th scope="row" data-label="${t.predictionDay}">${day}</th>
          <td data-label="${t.unit}">${unitLink(data.emus, c.emuId)}</td>
          <td data-label="${t.predictionConfidence}">${Math.round(c.confidence * 100)}%</td>
          <td data-label="${t.predictionLastSeen}">
            ${t.predictionLastSeenOn(c.lastSeenTrainCode, dateText(c.lastSeenServiceDay))}
          </td>
        </tr>`,
    );
  });
  return html`<section class="card" aria-labelledby="prediction-h">
    <h2 id="prediction-h">${t.trainPredictionHeading}</h2>
    ${reflowTable({
      className: 'prediction',
      caption: t.predictionCaption,
      columns: [t.predictionDay, t.unit, t.predictionConfidence, t.predictionLastSeen],
      rows: rows,
    })}
  </section>`;
}
