import { html, type Html, type HtmlValue } from './html.js';

/**
 * A table that reflows on a phone (web.css's table.reflow: each row's cells stack under their
 * headers): column headers with scope, an optional caption, the rows as given (each row's cells
 * carry their own data-label).
 */
export function reflowTable(options: {
  /** Classes after `reflow`, naming the table for its page's CSS and the tests. */
  className?: string;
  caption?: HtmlValue;
  columns: readonly HtmlValue[];
  rows: HtmlValue;
}): Html {
  const { className, caption, columns, rows } = options;
  return html`<table class="${className ? `reflow ${className}` : 'reflow'}">
    ${
      caption === undefined
        ? ''
        : html`<caption>
            ${caption}
          </caption>`
    }
    <thead>
      <tr>
        ${columns.map((column) => html`<th scope="col">${column}</th>`)}
      </tr>
    </thead>
    <tbody>
      ${rows}
    </tbody>
  </table>`;
}
