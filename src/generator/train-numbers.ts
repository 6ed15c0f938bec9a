import type { Rng } from './rng.js';
import { EmutrackError } from '../shared/errors/emutrack-error.js';

export type TrainPrefix = 'G' | 'D' | 'C';

/**
 * Ranges of train numbers by distance, as on the real timetable: G1-G999 and D1-D999 for long
 * runs, 1001-6999 for medium ones, 7001-9998 for regional ones; C trains use C1001-C9998.
 */
export type DistanceTier = 0 | 1 | 2;

const TIER_RANGES: Record<TrainPrefix, readonly (readonly [number, number])[]> = {
  G: [
    [1, 999],
    [1001, 6999],
    [7001, 9998],
  ],
  D: [
    [1, 999],
    [1001, 6999],
    [7001, 9998],
  ],
  C: [
    [1001, 9998],
    [1001, 9998],
    [1001, 9998],
  ],
};

const FALLBACK_PREFIXES: Record<TrainPrefix, readonly TrainPrefix[]> = {
  G: ['G', 'D', 'C'],
  D: ['D', 'G', 'C'],
  C: ['C', 'D', 'G'],
};

export class TrainNumbersExhaustedError extends EmutrackError {
  constructor() {
    super(
      'generator_train_numbers_exhausted',
      'no train numbers left (G, D and C all used up): generate a smaller network',
    );
  }
}

/**
 * Hands out unique train numbers. Odd numbers run away from the corridor's first station and
 * even ones towards it (the down/up convention). Each range is shuffled once, lazily, and
 * drawn from the end; when it runs dry the next tier, then the next prefix, is used.
 */
export class TrainNumberPool {
  private readonly used = new Set<string>();
  private readonly queues = new Map<string, number[]>();

  constructor(private readonly rng: Rng) {}

  get size(): number {
    return this.used.size;
  }

  /** A fresh number such as "G1234". */
  take(prefix: TrainPrefix, tier: DistanceTier, odd: boolean): string {
    for (const p of FALLBACK_PREFIXES[prefix]) {
      for (const t of tierOrder(tier)) {
        const n = this.draw(p, t, odd);
        if (n !== undefined) return this.mark(p, n);
      }
    }
    throw new TrainNumbersExhaustedError();
  }

  /**
   * A paired run's two numbers, e.g. ["G4340", "G4337"]: the second differs only in its last two
   * digits and has the other parity (the direction changes on the way), so it can be written
   * "G4340/37". Undefined when no such pair is free.
   */
  takePaired(prefix: TrainPrefix, tier: DistanceTier, odd: boolean): [string, string] | undefined {
    for (let attempt = 0; attempt < 20; attempt++) {
      const n = this.draw(prefix, tier, odd);
      if (n === undefined || n < 1000) return undefined;
      const block = n - (n % 100);
      const start = this.rng.int(0, 99);
      for (let k = 0; k < 100; k++) {
        const mate = block + ((start + k) % 100);
        if (mate === n || mate % 2 === n % 2 || mate < 1000) continue;
        if (this.used.has(`${prefix}${mate}`)) continue;
        if (prefix === 'C' ? mate < 1001 || mate > 9998 : mate > 9998) continue;
        return [this.mark(prefix, n), this.mark(prefix, mate)];
      }
      // No free mate in this hundred: keep n for a plain train later.
      this.queue(prefix, tier, odd).unshift(n);
    }
    return undefined;
  }

  private mark(prefix: TrainPrefix, n: number): string {
    const code = `${prefix}${n}`;
    this.used.add(code);
    return code;
  }

  private queue(prefix: TrainPrefix, tier: DistanceTier, odd: boolean): number[] {
    const key = `${prefix}${tier}${odd ? 1 : 0}`;
    let q = this.queues.get(key);
    if (!q) {
      const [lo, hi] = TIER_RANGES[prefix][tier]!;
      q = [];
      for (let n = lo; n <= hi; n++) if (n % 2 === (odd ? 1 : 0)) q.push(n);
      this.rng.shuffle(q);
      this.queues.set(key, q);
    }
    return q;
  }

  private draw(prefix: TrainPrefix, tier: DistanceTier, odd: boolean): number | undefined {
    const q = this.queue(prefix, tier, odd);
    while (q.length > 0) {
      const n = q.pop()!;
      if (!this.used.has(`${prefix}${n}`)) return n;
    }
    return undefined;
  }
}

function tierOrder(tier: DistanceTier): DistanceTier[] {
  return tier === 0 ? [0, 1, 2] : tier === 1 ? [1, 2, 0] : [2, 1, 0];
}
