/**
 * A least-recently-used cache bounded by a cost budget (bytes for parsed source maps, 1 per entry
 * for lookup results). A Map keeps insertion order, so the first key is always the oldest use.
 */
export class CostLru<V> {
  private readonly entries = new Map<string, { value: V; cost: number }>();
  private used = 0;

  constructor(private readonly budget: number) {}

  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    // Re-insert: now the most recently used.
    this.entries.delete(key);
    this.entries.set(key, e);
    return e.value;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** Stores the value unless it alone exceeds the budget (then it is used once and not kept). */
  set(key: string, value: V, cost = 1): void {
    this.delete(key);
    if (cost > this.budget) return;
    this.entries.set(key, { value, cost });
    this.used += cost;
    for (const [oldest, e] of this.entries) {
      if (this.used <= this.budget) break;
      this.entries.delete(oldest);
      this.used -= e.cost;
    }
  }

  delete(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    this.used -= e.cost;
  }

  clear(): void {
    this.entries.clear();
    this.used = 0;
  }

  get size(): number {
    return this.entries.size;
  }

  /** cost currently held */
  get cost(): number {
    return this.used;
  }
}
