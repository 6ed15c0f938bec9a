/**
 * The arrow keys in a month calendar (`[data-calendar]`): left and right move a day, up and down
 * a week, Home and End to the week's ends, between the days that are links. Tab still leaves the
 * calendar as usual; without this script every day link is reached with Tab.
 */
export function enableCalendarKeys(doc: Document): void {
  // One listener for the document: calendars added later (a page switched without reload) too.
  doc.addEventListener('keydown', (event) => {
    if (!(event.target instanceof Element)) return;
    const calendar = event.target.closest<HTMLElement>('[data-calendar]');
    const link = event.target.closest<HTMLAnchorElement>('a.calendar-day');
    if (!calendar) return;
    const cell = link?.closest('td');
    const row = cell?.parentElement as HTMLTableRowElement | null | undefined;
    if (!link || !cell || !row) return;
    const rows = [...calendar.querySelectorAll<HTMLTableRowElement>('tbody tr')];
    let r = rows.indexOf(row);
    let c = cell.cellIndex;
    const step = (dr: number, dc: number): HTMLAnchorElement | undefined => {
      // Walk in the direction asked until a day with a link (or the month's edge).
      for (let n = 0; n < 7 * 6; n++) {
        c += dc;
        r += dr;
        if (c < 0) {
          c = 6;
          r -= 1;
        } else if (c > 6) {
          c = 0;
          r += 1;
        }
        const target = rows[r]?.cells[c]?.querySelector<HTMLAnchorElement>('a.calendar-day');
        if (r < 0 || r >= rows.length) return undefined;
        if (target) return target;
      }
      return undefined;
    };
    const moves: Record<string, () => HTMLAnchorElement | undefined> = {
      ArrowLeft: () => step(0, -1),
      ArrowRight: () => step(0, 1),
      ArrowUp: () => step(-1, 0),
      ArrowDown: () => step(1, 0),
      Home: () => row.querySelector<HTMLAnchorElement>('a.calendar-day') ?? undefined,
      End: () => [...row.querySelectorAll<HTMLAnchorElement>('a.calendar-day')].pop(),
    };
    const move = moves[event.key];
    if (!move) return;
    const next = move();
    event.preventDefault();
    next?.focus();
  });
}
