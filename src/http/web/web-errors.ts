import { EmutrackError } from '../../shared/errors/emutrack-error.js';
import { html, type Html } from '../html/html.js';
import type { WebAssets } from './assets/web-assets.js';
import { webPage } from './layout.js';
import type { WebView } from './web-request.js';

/**
 * A page asked for with input it cannot show (a malformed date, an absurd page number): a 400
 * page naming the field. `field` is the parameter's name as it appears in the address.
 */
export class PageInputError extends EmutrackError {
  constructor(
    readonly field: string,
    readonly why: string,
  ) {
    super('web_invalid_param', `${field}: ${why}`);
  }
}

/** Nothing at this address (an unknown train, unit, station or day): the 404 page. */
export class PageNotFoundError extends EmutrackError {
  constructor(
    message: string,
    /** Pages the reader may have meant: [label, href]. */
    readonly suggestions: readonly { label: string; href: string }[] = [],
  ) {
    super('web_not_found', message);
  }
}

function suggestionList(view: WebView, suggestions: PageNotFoundError['suggestions']): Html {
  if (suggestions.length === 0) return html``;
  return html`<h2>${view.t.didYouMean}</h2>
    <ul class="plain-list">
      ${suggestions.map((s) => html`<li><a href="${s.href}">${s.label}</a></li>`)}
    </ul>`;
}

export function notFoundPage(
  view: WebView,
  assets: WebAssets,
  suggestions: PageNotFoundError['suggestions'] = [],
): string {
  const { t } = view;
  return webPage(view, assets, {
    title: t.notFoundTitle,
    body: html`<p>${t.notFoundText}</p>
      ${suggestionList(view, suggestions)}
      <p><a href="/">${t.backHome}</a></p>`,
  });
}

export function badRequestPage(view: WebView, assets: WebAssets, error: PageInputError): string {
  const { t } = view;
  return webPage(view, assets, {
    title: t.badRequestTitle,
    body: html`<p role="alert">${t.badRequestField(error.field, error.why)}</p>
      <p><a href="/">${t.backHome}</a></p>`,
  });
}

export function tooManyPage(view: WebView, assets: WebAssets, retryAfterSeconds: number): string {
  const { t } = view;
  return webPage(view, assets, {
    title: t.tooManyTitle,
    body: html`<p role="alert">${t.tooManyText(retryAfterSeconds)}</p>`,
  });
}

export function errorPage(view: WebView, assets: WebAssets): string {
  const { t } = view;
  return webPage(view, assets, {
    title: t.errorTitle,
    body: html`<p>${t.errorText}</p>
      <p><a href="/">${t.backHome}</a></p>`,
  });
}
