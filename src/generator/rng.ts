import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { JumpableRandomGenerator } from 'pure-rand/types/JumpableRandomGenerator';

/**
 * A seeded random source (xoroshiro128+ from pure-rand). Every random choice of the generator goes
 * through one of these, so a seed and options fully determine the output.
 */
export class Rng {
  private constructor(private readonly gen: JumpableRandomGenerator) {}

  static fromSeed(seed: number): Rng {
    // Fold the high bits of seeds beyond 32 bits in, so that 1 and 2**32 + 1 differ.
    const folded = (seed % 0x1_0000_0000) ^ Math.floor(seed / 0x1_0000_0000);
    return new Rng(xoroshiro128plus(folded | 0));
  }

  /**
   * An independent stream 2**64 steps further on. Separate streams keep one part of the output
   * stable when options that only affect another part change.
   */
  fork(): Rng {
    const copy = this.gen.clone();
    copy.jump();
    this.gen.jump();
    this.gen.jump();
    return new Rng(copy);
  }

  /** Uniform integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return uniformInt(this.gen, min, max);
  }

  /** Uniform float in [0, 1). */
  float(): number {
    return uniformFloat64(this.gen);
  }

  chance(p: number): boolean {
    return p > 0 && this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(0, items.length - 1)]!;
  }

  /** Index chosen with probability proportional to its weight; weights must not all be 0. */
  weightedIndex(weights: readonly number[]): number {
    let total = 0;
    for (const w of weights) total += w;
    if (!(total > 0)) throw new Error('weighted pick with no positive weight');
    let x = this.float() * total;
    for (let i = 0; i < weights.length; i++) {
      x -= weights[i]!;
      if (x < 0) return i;
    }
    return weights.length - 1;
  }

  weighted<T>(items: readonly T[], weightOf: (item: T) => number): T {
    return items[this.weightedIndex(items.map(weightOf))]!;
  }

  /** Fisher-Yates, in place. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      const t = items[i]!;
      items[i] = items[j]!;
      items[j] = t;
    }
    return items;
  }
}
