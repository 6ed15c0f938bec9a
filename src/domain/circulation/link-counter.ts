import { MAX_SKIPPED_RUNS, type ObservedLink } from './inference-rule.js';
import { runningSequence } from './running-order.js';

/** One run of one EMU: a node (interned key) on a service day, placed in the day by `at`. */
export interface CountedRun {
  day: number;
  node: number;
  /** Seconds from the day's midnight that order the day's runs. */
  at: number;
  bySighting: boolean;
}

/** Days are kept modulo this in packed keys (a window is at most 366 days). */
const DAY_SLOTS = 4096;

/**
 * Everything an inference run counts, built over one pass of the window's daily records in EMU
 * order, and the rule of inference-rule.ts applied to it in `links()`. Node keys are interned to
 * numbers; steps are kept in flat arrays (a few hundred thousand for a national window).
 */
export class LinkCounter {
  readonly keys: string[] = [];
  private readonly ids = new Map<string, number>();
  runs = 0;
  runsOrderedBySighting = 0;
  // One entry per step A->B of one EMU: A, its day, B and B's day, and the run after B (or -1).
  private readonly a: number[] = [];
  private readonly day: number[] = [];
  private readonly b: number[] = [];
  private readonly bDay: number[] = [];
  private readonly c: number[] = [];
  private readonly cDay: number[] = [];
  private readonly emu: number[] = [];

  node(key: string): number {
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.keys.length;
      this.keys.push(key);
      this.ids.set(key, id);
    }
    return id;
  }

  /** One EMU's runs of the window, records of one day and node already merged. */
  addEmu(emu: number, runs: CountedRun[]): void {
    this.runs += runs.length;
    for (const r of runs) if (r.bySighting) this.runsOrderedBySighting++;
    const seq = runningSequence(
      runs,
      (x, y) => x.node === y.node,
      (x, y) => x.node - y.node,
    );
    for (let i = 0; i + 1 < seq.length; i++) {
      const x = seq[i]!;
      const y = seq[i + 1]!;
      if (y.day - x.day > 1) continue;
      const z = seq[i + 2];
      this.emu.push(emu);
      this.a.push(x.node);
      this.day.push(x.day);
      this.b.push(y.node);
      this.bDay.push(y.day);
      this.c.push(z && z.day - y.day <= 1 ? z.node : -1);
      this.cDay.push(z ? z.day : -1);
    }
  }

  /**
   * Step i is one unit of a coupled pair going A->C on a day when the other unit on A ran
   * A->B->C (this one unseen on B): it is neither a link A->C nor a skip to count again.
   */
  private coupledShortcut(i: number, group: readonly number[]): boolean {
    if (group.length < 2) return false;
    for (const o of group) {
      if (
        this.emu[o] !== this.emu[i] &&
        this.b[o] !== this.b[i] &&
        this.c[o] === this.b[i] &&
        this.cDay[o] === this.bDay[i]
      )
        return true;
    }
    return false;
  }

  /**
   * Known links: links with `minSupport` days, taken most supported first (then by key, so
   * every run agrees), each train keeping at most one known link out and one in.
   * Returns the successor of each train with a known link out.
   */
  private knownLinks(
    support: ReadonlyMap<number, number>,
    nodes: number,
    minSupport: number,
  ): Map<number, number> {
    const candidates = [...support.entries()]
      .filter(([link, s]) => s >= minSupport && Math.floor(link / nodes) !== link % nodes)
      .sort((x, y) => y[1] - x[1] || x[0] - y[0]);
    const next = new Map<number, number>();
    const hasPrev = new Set<number>();
    for (const [link] of candidates) {
      const from = Math.floor(link / nodes);
      const to = link - from * nodes;
      if (next.has(from) || hasPrev.has(to)) continue;
      next.set(from, to);
      hasPrev.add(to);
    }
    return next;
  }

  /**
   * Support of every link (distinct days): each counted step either a skip through known links
   * (counted for every link of its path) or a link of its own.
   */
  private supportWithSkips(
    counted: Uint8Array,
    knownNext: ReadonlyMap<number, number>,
    direct: ReadonlyMap<number, number>,
    nextDay: ReadonlyMap<number, number>,
    nodes: number,
  ): Map<number, number> {
    const days = new Set<number>();
    const support = new Map<number, number>();
    const see = (link: number, day: number) => {
      const once = link * DAY_SLOTS + (day % DAY_SLOTS);
      if (days.has(once)) return;
      days.add(once);
      support.set(link, (support.get(link) ?? 0) + 1);
    };
    const path: number[] = [];
    for (let i = 0; i < counted.length; i++) {
      if (!counted[i]) continue;
      const x = this.a[i]!;
      const z = this.b[i]!;
      path.length = 0;
      if (knownNext.get(x) !== z) {
        let at = x;
        for (let hop = 0; hop <= MAX_SKIPPED_RUNS; hop++) {
          const next = knownNext.get(at);
          if (next === undefined) break;
          path.push(at * nodes + next);
          at = next;
          if (at === z) break;
        }
        if (path.length < 2 || at !== z) path.length = 0;
      }
      if (path.length === 0) {
        see(x * nodes + z, this.day[i]!);
        continue;
      }
      // Each skipped link on the day its train ran: past midnight where that link usually
      // crosses it, never past the day of Z.
      let day = this.day[i]!;
      for (const link of path) {
        see(link, day);
        if ((nextDay.get(link) ?? 0) * 2 > (direct.get(link) ?? 0))
          day = Math.min(day + 1, this.bDay[i]!);
      }
    }
    return support;
  }

  /**
   * The links with their counts, by the rule of inference-rule.ts:
   * 1. direct support: days on which some unit stepped A->B (coupled shortcuts left out);
   * 2. known links: most supported first, at most one each way per train, >= minSupport days;
   * 3. a step X->Z that is not known itself but follows known links X->Y1->...->Z (at most
   *    MAX_SKIPPED_RUNS runs in between) went through unseen runs: it counts, on its day, for
   *    every link of that path, and not as a link X->Z;
   * 4. support = the days a link was seen directly or through a skip; out and in sum it.
   * Steps 2 and 3 run twice, the second time from the support of the first.
   */
  links(minSupport: number): ObservedLink[] {
    const n = this.a.length;
    const nodes = this.keys.length;
    const byStart = new Map<number, number[]>();
    for (let i = 0; i < n; i++) {
      const k = this.a[i]! * DAY_SLOTS + (this.day[i]! % DAY_SLOTS);
      const list = byStart.get(k);
      if (list) list.push(i);
      else byStart.set(k, [i]);
    }
    const counted = new Uint8Array(n);
    for (const group of byStart.values())
      for (const i of group) if (!this.coupledShortcut(i, group)) counted[i] = 1;

    // 1. Direct support (distinct days), and how often the link crosses midnight.
    const directDays = new Set<number>();
    const direct = new Map<number, number>();
    const nextDay = new Map<number, number>();
    for (let i = 0; i < n; i++) {
      if (!counted[i]) continue;
      const link = this.a[i]! * nodes + this.b[i]!;
      const once = link * DAY_SLOTS + (this.day[i]! % DAY_SLOTS);
      if (directDays.has(once)) continue;
      directDays.add(once);
      direct.set(link, (direct.get(link) ?? 0) + 1);
      if (this.bDay[i]! > this.day[i]!) nextDay.set(link, (nextDay.get(link) ?? 0) + 1);
    }

    // 2 and 3, twice: known links from the direct support, the support with skips through them
    // counted, then known links again from that support (a skip no longer competing with the
    // links it went through) and the support with skips through those.
    let known = this.knownLinks(direct, nodes, minSupport);
    let support = this.supportWithSkips(counted, known, direct, nextDay, nodes);
    known = this.knownLinks(support, nodes, minSupport);
    support = this.supportWithSkips(counted, known, direct, nextDay, nodes);

    const out = new Map<number, number>();
    const into = new Map<number, number>();
    for (const [link, s] of support) {
      const from = Math.floor(link / nodes);
      const to = link - from * nodes;
      out.set(from, (out.get(from) ?? 0) + s);
      into.set(to, (into.get(to) ?? 0) + s);
    }
    const result: ObservedLink[] = [];
    for (const [link, s] of support) {
      const from = Math.floor(link / nodes);
      const to = link - from * nodes;
      result.push({
        from: this.keys[from]!,
        to: this.keys[to]!,
        support: s,
        outTotal: out.get(from)!,
        inTotal: into.get(to)!,
      });
    }
    return result;
  }
}
