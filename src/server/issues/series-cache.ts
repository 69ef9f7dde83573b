/**
 * Sentry's `stats` series of listed issues, kept while they cannot have changed. Tools poll the
 * issue lists (Backstage on every entity page, dashboards every minute) and each answer carries a
 * series per issue: reading them again costs as much as a third of the list (issue 28's budget
 * for `stats` is 10 %).
 *
 * A series is kept under a version made of its window start and the issue's own event count and
 * last-seen time, both read with the list in the same request: every event the digest counts
 * moves the count in the transaction that writes the hourly and daily rows, and merges, unmerges
 * and deletions rewrite both together. So a stale series is never served, on one process or many
 * (each validates against the database it just read). Bounded, least recently used out first.
 */
export type Series = ReadonlyArray<readonly [number, number]>;
/** `{ "24h": series }`: one object per (issue, version), shared by every answer while valid. */
export type StatsObject = Readonly<Record<string, Series>>;

export interface SeriesCache {
  get(issueId: number, version: string): StatsObject | undefined;
  set(issueId: number, version: string, stats: StatsObject): void;
}

export function createSeriesCache(max = 4096): SeriesCache {
  const entries = new Map<number, { version: string; stats: StatsObject }>();
  return {
    get(issueId, version) {
      const e = entries.get(issueId);
      if (!e || e.version !== version) return undefined;
      // Map order is insertion order: re-inserting marks it recently used.
      entries.delete(issueId);
      entries.set(issueId, e);
      return e.stats;
    },
    set(issueId, version, stats) {
      entries.delete(issueId);
      entries.set(issueId, { version, stats });
      while (entries.size > max) entries.delete(entries.keys().next().value as number);
    },
  };
}

const json = new WeakMap<StatsObject, string>();

/** The JSON of a cached stats object, serialized once while it lives. */
export function statsJson(stats: StatsObject): string {
  let s = json.get(stats);
  if (s === undefined) {
    s = JSON.stringify(stats);
    json.set(stats, s);
  }
  return s;
}
