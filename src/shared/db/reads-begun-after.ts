/**
 * Many concurrent callers served by few reads, none answered by a read that began before it
 * asked. Callers join the waiting batch (with a key each, when the read needs to know what to
 * fetch); its read starts once the callers of this event-loop turn have joined (setImmediate:
 * every request whose bytes arrived in the same turn) and fewer than `maxInFlight` reads are
 * running. Callers arriving while it runs wait for the next batch. So a caller sees every
 * transaction that had committed when it asked, in this process or any other: what makes a
 * version read per request exact while costing far less than one query per request.
 *
 * Used by the one reader of data versions (src/shared/cache/data-versions.ts), for the API and the site.
 */
export class ReadsBegunAfter<Key, Result> {
  private waiting: Batch<Key, Result> | undefined;
  private inFlight = 0;
  private scheduled = false;

  /**
   * @param readBatch one read for a whole batch, given the keys its callers asked with.
   * @param maxInFlight reads running at once. Default 1.
   */
  constructor(
    private readonly readBatch: (keys: ReadonlySet<Key>) => Promise<Result>,
    private readonly maxInFlight = 1,
  ) {}

  /** The result of a read that begins after this call (`key` joins that read's keys). */
  read(key?: Key): Promise<Result> {
    const batch = (this.waiting ??= newBatch<Key, Result>());
    if (key !== undefined) batch.keys.add(key);
    this.schedule();
    return batch.done;
  }

  /** Starts the waiting batch's read after this turn's I/O callbacks, if a read is free. */
  private schedule(): void {
    if (this.scheduled || !this.waiting || this.inFlight >= this.maxInFlight) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.start();
    });
  }

  private start(): void {
    const batch = this.waiting;
    if (!batch || this.inFlight >= this.maxInFlight) return;
    this.waiting = undefined;
    this.inFlight++;
    this.readBatch(batch.keys)
      .then(batch.resolve, batch.reject)
      .finally(() => {
        this.inFlight--;
        this.schedule();
      });
  }
}

interface Batch<Key, Result> {
  keys: Set<Key>;
  done: Promise<Result>;
  resolve(result: Result): void;
  reject(err: unknown): void;
}

function newBatch<Key, Result>(): Batch<Key, Result> {
  let resolve!: Batch<Key, Result>['resolve'];
  let reject!: Batch<Key, Result>['reject'];
  const done = new Promise<Result>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Each caller awaits it; this only keeps Node from calling a failure unhandled.
  done.catch(() => {});
  return { keys: new Set(), done, resolve, reject };
}
