// The campaign's only source of randomness: mulberry32, a 32-bit PRNG small enough to read
// whole, seeded by --seed. The same seed gives the same numbers on every machine and Node
// version, so a seed and a step count name one history exactly.

export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(0, items.length - 1)];
  }

  /** Each item with probability p, in the given order. */
  subset<T>(items: readonly T[], p = 0.5): T[] {
    return items.filter(() => this.chance(p));
  }

  /** An item by weight: [[weight, item], ...]. */
  weighted<T>(choices: readonly (readonly [number, T])[]): T {
    const total = choices.reduce((sum, [weight]) => sum + weight, 0);
    let at = this.next() * total;
    for (const [weight, item] of choices) {
      at -= weight;
      if (at < 0) return item;
    }
    return choices[choices.length - 1][1];
  }
}
