// Moves this process's wall clock by EMUTRACK_CLOCK_OFFSET_MS (loaded with `node --import`, so
// every process of a test run, the vitest workers and the programs they spawn, sees the same
// moved time). The clock keeps ticking; only its origin moves. Monotonic timers
// (performance.now, setTimeout) are untouched: they measure durations, not days.
//
// The real clock stays reachable as globalThis.__emutrackRealNow for the test harness's own
// bookkeeping (test database names carry the real time so stale ones are found by age).
const offset = Number(process.env.EMUTRACK_CLOCK_OFFSET_MS ?? '0');
if (Number.isFinite(offset) && offset !== 0 && !globalThis.__emutrackRealNow) {
  const RealDate = globalThis.Date;
  const realNow = RealDate.now.bind(RealDate);
  const movedNow = () => realNow() + offset;
  class MovedDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(movedNow());
      else super(...args);
    }
    static now() {
      return movedNow();
    }
  }
  // Date() called without `new` returns a string of the current time.
  const MovedDateFn = new Proxy(MovedDate, {
    apply: () => new MovedDate().toString(),
  });
  Object.defineProperty(globalThis, '__emutrackRealNow', { value: realNow });
  globalThis.Date = MovedDateFn;
}
