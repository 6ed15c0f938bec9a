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

const STYLE = `
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f4f5f7; color: #1d1f23; }
  main { max-width: 34rem; margin: 3rem auto; background: #fff; padding: 2rem; border-radius: 8px;
         box-shadow: 0 1px 4px rgba(0,0,0,.12); }
  h1 { font-size: 1.35rem; margin-top: 0; }
  ul.scopes { padding-left: 1.2rem; } ul.scopes li { margin: .4rem 0; }
  code { background: #eef0f3; padding: 0 .25rem; border-radius: 3px; font-size: .85em; }
  .muted { color: #5b616b; font-size: .9rem; }
  .warn { color: #8a4b00; }
  .buttons { display: flex; gap: 1rem; margin-top: 1.5rem; }
  button { font: inherit; padding: .55rem 1.4rem; border-radius: 6px; border: 1px solid #9aa1ab;
           background: #fff; cursor: pointer; }
  button[value=allow], button.primary { background: #1f6feb; border-color: #1f6feb; color: #fff; }
  table { border-collapse: collapse; width: 100%; } td, th { text-align: left; padding: .3rem; vertical-align: top; }
  tr + tr td { border-top: 1px solid #e3e5e8; }
`;

/** A whole page: title, the shared style, the body. */
export function page(title: string, body: Html, wide = false): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title}</title>
        <style>
          ${new Html(STYLE)}${wide ? new Html('main { max-width: 60rem; }') : ''}
        </style>
      </head>
      <body>
        <main>${body}</main>
      </body>
    </html> `.text;
}
