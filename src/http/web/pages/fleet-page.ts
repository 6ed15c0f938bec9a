import { fleetValues, readFleet, type FleetUnit } from '../../../domain/emus/read-fleet.js';
import {
  latestBuiltDay,
  trainsByUnit,
  type UnitDayTrain,
} from '../../../domain/records/day-units.js';
import { recordsVersion, type DataVersionRef } from '../../../shared/cache/data-versions.js';
import { html, Html } from '../../html/html.js';
import type { ApiServices } from '../../app-context.js';
import { didYouMean } from '../did-you-mean.js';
import { webPage } from '../layout.js';
import { depotHref, emuHref, trainHref } from '../page-links.js';
import { sendKeptPage } from '../send-page.js';
import { modelTone } from '../views/month-calendar.js';
import { PageInputError, PageNotFoundError } from '../web-errors.js';
import { viewKey, type WebView } from '../web-request.js';
import type { WebRoutes } from '../web-routes.js';
import { textParam } from './page-inputs.js';
import { longDate } from './unit-view.js';
import { reflowTable } from '../../html/reflow-table.js';

type Field = 'model' | 'bureau' | 'depot';
const FIELDS: readonly Field[] = ['model', 'bureau', 'depot'];

/** What the fleet shows: the register, and the latest built day's records (when there is one). */
interface FleetData {
  units: FleetUnit[];
  day?: number;
  trains: Map<number, UnitDayTrain[]>;
}

async function fleetData(services: ApiServices, day: number | undefined): Promise<FleetData> {
  const [units, trains] = await Promise.all([
    readFleet(services.db),
    day === undefined ? new Map<number, UnitDayTrain[]>() : trainsByUnit(services.db, day),
  ]);
  return { units, trains, ...(day === undefined ? {} : { day }) };
}

function dependsOn(day: number | undefined): DataVersionRef[] {
  return day === undefined ? [{ name: 'emus' }] : [{ name: 'emus' }, recordsVersion(day)];
}

const groupKey = (u: FleetUnit) => `${u.bureau}\u0000${u.depot}`;

/** Units by model, then by bureau and depot (the reader's order), as sections with a table each. */
function unitGroups(view: WebView, data: FleetData, units: readonly FleetUnit[]): Html {
  const { t } = view;
  if (units.length === 0) return html`<p class="muted">${t.fleetNone}</p>`;
  const models = new Map<string, Map<string, FleetUnit[]>>();
  for (const unit of units) {
    const groups = models.get(unit.model) ?? new Map<string, FleetUnit[]>();
    models.set(unit.model, groups);
    const list = groups.get(groupKey(unit)) ?? [];
    groups.set(groupKey(unit), list);
    list.push(unit);
  }
  const ranOn = data.day === undefined ? t.fleetNoDay : t.fleetRanOn(longDate(view, data.day));
  let n = 0;
  return html`${[...models].map(([model, groups]) => {
    const swatch =
      model === ''
        ? ''
        : html`<span class="tone-swatch tone-${modelTone(model)}" aria-hidden="true"></span>`;
    return html`<section class="card fleet-model" aria-labelledby="model-${++n}">
      <h2 id="model-${n}">${swatch}<span class="chip">${model || t.unknown}</span></h2>
      ${[...groups.values()].map((list) => {
        const { bureau, depot } = list[0]!;
        const depotText =
          depot === '' ? t.unknown : html`<a href="${depotHref(depot)}">${depot}</a>`;
        return reflowTable({
          className: 'fleet-units',
          caption: html`${bureau || t.unknown} · ${depotText}
            <span class="muted">(${t.fleetCount(list.length)})</span>`,
          columns: [t.unit, ranOn],
          rows: list.map((unit) => {
            const trains = data.trains.get(unit.emuId) ?? [];
            return html`<tr>
              <th scope="row" data-label="${t.unit}">
                <a href="${emuHref(unit.code)}">${unit.code}</a>
              </th>
              <td data-label="${ranOn}">
                ${
                  trains.length === 0
                    ? html`<span class="muted">${t.fleetRanNothing}</span>`
                    : html`<span class="trains"
                        >${trains.map(
                          (train) =>
                            html`<a href="${trainHref(train.trainCode)}">${train.trainCode}</a> `,
                        )}</span
                      >`
                }
              </td>
            </tr>`;
          }),
        });
      })}
    </section>`;
  })}`;
}

/** The filter form: a plain GET of /fleet with one select per field ("" = all). */
function filterForm(
  view: WebView,
  units: readonly FleetUnit[],
  chosen: Partial<Record<Field, string>>,
): Html {
  const { t } = view;
  const label: Record<Field, string> = { model: t.model, bureau: t.bureau, depot: t.depot };
  const select = (field: Field) => {
    const options = fleetValues(units, field).map(
      (value) =>
        html`<option value="${value}" ${chosen[field] === value ? new Html('selected') : ''}>
          ${value}
        </option>`,
    );
    return html`<label for="fleet-${field}"
      >${label[field]}
      <select id="fleet-${field}" name="${field}">
        <option value="">${t.fleetAll}</option>
        ${options}
      </select>
    </label>`;
  };
  return html`<form class="filters" action="/fleet" method="get">
    ${FIELDS.map(select)}
    <button type="submit">${t.fleetFilter}</button>
  </form>`;
}

/**
 * GET /fleet: every unit of the register grouped by model, bureau and depot, with the trains
 * each ran on the latest built day; filtered by model, bureau and depot (a GET form of selects:
 * a value that is none of the fleet's is a 400 naming its field). GET /fleet/depot/{depot}: one
 * depot's units (an unknown depot: the 404 page).
 */
export function fleetPage({ web, services, assets, view }: WebRoutes): void {
  const latest = () => latestBuiltDay(services.db);

  web.get('/fleet', async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const chosen: Partial<Record<Field, string>> = {};
    for (const field of FIELDS) {
      const value = textParam(query, field, 100);
      if (value !== undefined) chosen[field] = value;
    }
    const v = view(request);
    const day = await latest();
    const key = `web-fleet:${FIELDS.map((f) => chosen[f] ?? '').join('\u0000')}:${day ?? ''}:${viewKey(v)}`;
    const page = await services.pages.page(
      key,
      dependsOn(day),
      async () => {
        const data = await fleetData(services, day);
        for (const field of FIELDS) {
          const value = chosen[field];
          if (value !== undefined && !data.units.some((u) => u[field] === value)) {
            throw new PageInputError(field, `no unit has ${value}`);
          }
        }
        const units = data.units.filter((u) =>
          FIELDS.every((f) => chosen[f] === undefined || u[f] === chosen[f]),
        );
        const body = html`${filterForm(v, data.units, chosen)}
          <p>${v.t.fleetCount(units.length)}</p>
          ${unitGroups(v, data, units)}`;
        const text = webPage(v, assets, {
          title: v.t.fleetTitle,
          description: v.t.fleetDescription,
          section: 'fleet',
          body,
        });
        return { body: text, records: units.length };
      },
      { encoding: 'br' },
    );
    return sendKeptPage(request, reply, page);
  });

  web.get('/fleet/depot/:depot', async (request, reply) => {
    const { depot } = request.params as { depot: string };
    const v = view(request);
    const day = await latest();
    const key = `web-depot:${depot}:${day ?? ''}:${viewKey(v)}`;
    const page = await services.pages.page(
      key,
      dependsOn(day),
      async () => {
        const data = await fleetData(services, day);
        const units = data.units.filter((u) => u.depot === depot);
        if (units.length === 0) {
          const depots = fleetValues(data.units, 'depot').filter(
            (d) => depot !== '' && (d.includes(depot) || depot.includes(d)),
          );
          const suggestions =
            depots.length > 0
              ? depots.map((d) => ({ label: d, href: depotHref(d) }))
              : await didYouMean(services.search, depot);
          throw new PageNotFoundError(`no depot ${depot}`, suggestions);
        }
        const bureaus = fleetValues(units, 'bureau').join(', ');
        const body = html`<p>
            ${bureaus === '' ? '' : html`${v.t.bureau}: ${bureaus} · `}${v.t.fleetCount(units.length)}
          </p>
          ${unitGroups(v, data, units)}
          <p><a href="/fleet">${v.t.depotAll}</a></p>`;
        const text = webPage(v, assets, {
          title: v.t.depotTitle(depot),
          description: v.t.depotDescription(depot),
          section: 'fleet',
          body,
        });
        return { body: text, records: units.length };
      },
      { encoding: 'br' },
    );
    return sendKeptPage(request, reply, page);
  });
}
