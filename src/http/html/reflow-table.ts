import { html, type Html, type HtmlValue } from './html.js';

/**
 * A table that reflows on a phone (web.css's table.reflow: each row's cells stack under their
 * headers): column headers with scope, an optional caption, the rows as given (each row's cells
 * carry their own data-label); `empty` says there is nothing to list.
 */
export function reflowTable(options: {
  /** Classes after `reflow`, naming the table for its page's CSS and the tests. */
  className?: string;
  caption?: HtmlValue;
  columns: readonly HtmlValue[];
  rows: HtmlValue;
  /** Shown as a paragraph in place of the table when `rows` is an empty list. */
  empty?: HtmlValue;
}): Html {
  const { className, caption, columns, rows, empty } = options;
  if (empty !== undefined && Array.isArray(rows) && rows.length === 0) return html`<p>${empty}</p>`;
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
