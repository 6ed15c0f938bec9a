import { CSRF_FIELD } from '../session/form-csrf.js';
import { escapeHtml } from './escape.js';

/** HTML text with every interpolated value escaped, unless it is already Html. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Value = Html | string | number | undefined | null | false | readonly Value[];

/** What a template may interpolate. */
export type HtmlValue = Value;

function render(value: Value): string {
  if (value === undefined || value === null || value === false) return '';
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** A tagged template: `html\`<p>${name}</p>\`` escapes `name`; nested html and arrays pass through. */
export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0]!;
  values.forEach((v, i) => {
    out += render(v) + strings[i + 1]!;
  });
  return new Html(out);
}

/** The hidden field that carries the browser's CSRF token in a form (src/http/session/form-csrf.ts). */
export function hiddenCsrf(token: string): Html {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${token}" />`;
}
