/**
 * The stream's answers checked against an oracle on both databases: a small seeded installation
 * (issues with several events each, tags drawn from a fixed random sequence, some issues resolved)
 * goes through the real digest, and the tag search and the sorts — paged with keyset cursors — must
 * return exactly the issues, in exactly the order, that the events themselves say, with sparklines
 * that sum the events of each bucket. Guards the plans chosen for big installations (issue 43): an
 * index or rewrite that drops, adds or reorders an issue fails here.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { IssueSort, StreamQuery } from "../../src/server/issues/stream";
import { type IssueSearchQuery, type StorageCondition, searchIssues, type TagPlan } from "../../src/storage/issues/search";
import { enqueueMany } from "../../src/storage/queue/queue";
import { dialects } from "../helpers/test-db";
import { createWorld, DAY, MINUTE, T0, type World } from "../lifecycle/helpers";
import { drain, hexId } from "../pipeline/helpers";

const BROWSERS = ["Chrome 124", "Firefox 125", "Firefox 125", "Safari 17.4", "Edge 124"];
const ENVIRONMENTS = ["production", "production", "staging", "development"];

interface SeededEvent {
  browser: string;
  environment: string;
  user: string;
  at: number;
}

interface SeededIssue {
  message: string;
  events: SeededEvent[];
  resolved: boolean;
  id: number;
}

/** mulberry32: the same installation on every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function seedIssues(n: number): SeededIssue[] {
  const r = rng(43);
  const pick = <T>(list: T[]) => list[Math.floor(r() * list.length)] as T;
  return Array.from({ length: n }, (_, i) => {
    const events = Array.from({ length: 1 + Math.floor(r() * 7) }, () => ({
      browser: pick(BROWSERS),
      environment: pick(ENVIRONMENTS),
      // one issue in ten has a user nobody else has: a rare tag value
      user: i % 10 === 3 ? `rare-${i}` : `u${Math.floor(r() * 5)}`,
      // within 20 days, minute-aligned, never two events of the installation at the same minute
      at: T0 - (1 + Math.floor(r() * 20 * 24 * 60)) * MINUTE - i,
    }));
    // letters, not digits: grouping folds numbers in messages together
    const name = String.fromCharCode(97 + Math.floor(i / 26), 97 + (i % 26));
    return { message: `issue ${name}`, events, resolved: r() < 0.25, id: 0 };
  });
}

describe.each(await dialects())("stream results against the events on %s", (dialect) => {
  let w: World;
  const issues = seedIssues(60);

  beforeAll(async () => {
    w = await createWorld(dialect);
    w.clock.now = T0;
    let seq = 0;
    const items = issues.flatMap((issue) =>
      issue.events.map((e) => {
        seq += 1;
        const body = {
          event_id: hexId(`stream-results:${seq}`),
          platform: "javascript",
          level: "error",
          timestamp: e.at / 1000,
          environment: e.environment,
          user: { id: e.user },
          exception: { values: [{ type: "ResultError", value: issue.message, mechanism: { type: "generic", handled: true } }] },
          tags: { browser: e.browser },
        };
        return {
          projectId: w.projectId,
          keyId: 1,
          receivedAt: e.at,
          clientIp: null,
          kind: "store" as const,
          body: Buffer.from(JSON.stringify(body)),
        };
      }),
    );
    await enqueueMany(w.db, items);
    const r = await drain(w.db, T0);
    if (r.failed > 0) throw new Error(`digest failed for ${r.failed} events`);
    for (const issue of issues) {
      issue.id = await w.issueOf(issue.message);
      if (issue.resolved) await w.services.issueActions.update(w.member, "acme", issue.id, { status: "resolved" });
    }
  }, 120_000);
  afterAll(async () => {
    await w?.close();
  });

  const has = (i: SeededIssue, key: "browser" | "environment" | "user", value: string) =>
    i.events.some((e) => (key === "user" ? `id:${e.user}` : e[key]) === value);
  const lastSeen = (i: SeededIssue) => Math.max(...i.events.map((e) => e.at));
  const firstSeen = (i: SeededIssue) => Math.min(...i.events.map((e) => e.at));
  const users = (i: SeededIssue) => new Set(i.events.map((e) => e.user)).size;
  const SORT_VALUE: Record<IssueSort, (i: SeededIssue) => number> = {
    date: lastSeen,
    new: firstSeen,
    freq: (i) => i.events.length,
    user: users,
  };
  /** The oracle: matching issues in the stream's order (sort value, then id, both descending). */
  const expected = (match: (i: SeededIssue) => boolean, sort: IssueSort) =>
    issues
      .filter(match)
      .sort((a, b) => SORT_VALUE[sort](b) - SORT_VALUE[sort](a) || b.id - a.id)
      .map((i) => i.id);

  /** Every page of the stream, four issues a page, following the cursors. */
  async function walk(q: StreamQuery) {
    const out: Array<{ id: number; spark: number[] }> = [];
    let cursor: string | null = null;
    let first: { sparkStart: number; bucketMs: number } | null = null;
    do {
      const page = await w.services.issueStream.list(w.owner, "acme", { ...q, limit: 4, cursor });
      first ??= { sparkStart: page.sparkStart, bucketMs: page.bucketMs };
      out.push(...page.items.map((i) => ({ id: i.id, spark: i.spark })));
      cursor = page.nextCursor;
    } while (cursor);
    return { ids: out.map((o) => o.id), items: out, ...(first as { sparkStart: number; bucketMs: number }) };
  }

  const unresolved = (i: SeededIssue) => !i.resolved;
  const firefoxStaging = (i: SeededIssue) => unresolved(i) && has(i, "browser", "Firefox 125") && has(i, "environment", "staging");

  test("the data set has what the cases need", () => {
    expect(issues.filter(firefoxStaging).length).toBeGreaterThan(8);
    expect(issues.filter((i) => !firefoxStaging(i) && unresolved(i)).length).toBeGreaterThan(8);
    expect(issues.filter((i) => i.resolved).length).toBeGreaterThan(5);
  });

  test.each(["date", "new", "freq", "user"] as const)(
    'tag search browser:"Firefox 125" environment:staging, sorted by %s',
    async (sort) => {
      const got = await walk({ query: 'browser:"Firefox 125" environment:staging', sort });
      expect(got.ids).toEqual(expected(firefoxStaging, sort));
    },
  );

  test("negated, wildcard, rare and repeated tag terms, all statuses", async () => {
    const q = async (query: string, sort: IssueSort = "date") => (await walk({ query, sort, status: "all" })).ids;
    expect(await q('!browser:"Firefox 125"')).toEqual(expected((i) => !has(i, "browser", "Firefox 125"), "date"));
    expect(await q("browser:Fire*", "freq")).toEqual(expected((i) => has(i, "browser", "Firefox 125"), "freq"));
    expect(await q("user.id:rare-13 environment:production")).toEqual(
      expected((i) => has(i, "user", "id:rare-13") && has(i, "environment", "production"), "date"),
    );
    expect(await q("environment:[staging,development] !environment:production", "freq")).toEqual(
      expected(
        (i) => (has(i, "environment", "staging") || has(i, "environment", "development")) && !has(i, "environment", "production"),
        "freq",
      ),
    );
    expect(await q("browser:Opera")).toEqual([]);
  });

  test.each(["collect", "probe"] as const)("both tag plans give the same pages: %s", async (plan: TagPlan) => {
    const all = async (conditions: StorageCondition[], sort: IssueSort) => {
      const ids: number[] = [];
      let cursor: IssueSearchQuery["cursor"] = null;
      do {
        const page = await searchIssues(w.db, { projectIds: [w.projectId], conditions, sort, limit: 3, cursor, tagPlan: plan });
        ids.push(...page.items.map((i) => i.id));
        cursor = page.nextCursor;
      } while (cursor);
      return ids;
    };
    const tag = (key: string, values: string[], negated = false): StorageCondition => ({ kind: "tag", key, values, negated });
    const status: StorageCondition = { kind: "status", values: ["unresolved"], negated: false };
    for (const sort of ["date", "new", "freq", "user"] as const) {
      expect(await all([status, tag("browser", ["Firefox 125"]), tag("environment", ["staging"])], sort)).toEqual(
        expected(firefoxStaging, sort),
      );
      expect(await all([status, tag("browser", ["Fire*"]), tag("environment", ["production"], true)], sort)).toEqual(
        expected((i) => unresolved(i) && has(i, "browser", "Firefox 125") && !has(i, "environment", "production"), sort),
      );
    }
    expect(await all([tag("user", ["id:rare-13", "id:rare-23"]), { kind: "has", key: "browser", negated: false }], "freq")).toEqual(
      expected((i) => has(i, "user", "id:rare-13") || has(i, "user", "id:rare-23"), "freq"),
    );
    expect(await all([status, { kind: "has", key: "environment", negated: true }], "date")).toEqual([]);
  });

  test("sorted by events with 14-day sparklines: order and every bucket", async () => {
    const got = await walk({ sort: "freq", stats: "14d" });
    expect(got.ids).toEqual(expected(unresolved, "freq"));
    expect(got.bucketMs).toBe(DAY);
    // The last bucket holds now.
    expect(got.sparkStart + 14 * DAY).toBeGreaterThan(T0);
    expect(got.sparkStart + 13 * DAY).toBeLessThanOrEqual(T0);
    for (const item of got.items) {
      const issue = issues.find((i) => i.id === item.id) as SeededIssue;
      const buckets = Array.from({ length: 14 }, (_, n) => {
        const from = got.sparkStart + n * DAY;
        return issue.events.filter((e) => e.at >= from && e.at < from + DAY).length;
      });
      expect(item.spark, issue.message).toEqual(buckets);
    }
  });

  test("the default view and its 24-hour sparklines", async () => {
    const got = await walk({});
    expect(got.ids).toEqual(expected(unresolved, "date"));
    for (const item of got.items) {
      const issue = issues.find((i) => i.id === item.id) as SeededIssue;
      const buckets = Array.from({ length: 24 }, (_, n) => {
        const from = got.sparkStart + n * got.bucketMs;
        return issue.events.filter((e) => e.at >= from && e.at < from + got.bucketMs).length;
      });
      expect(item.spark, issue.message).toEqual(buckets);
    }
  });
});
