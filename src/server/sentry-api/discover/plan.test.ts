import { describe, expect, test } from "vitest";
import { type DiscoverRow, evaluate, rowMatches, statsSeries, topGroups } from "./evaluate";
import { discoverPlan, parseField, statsPlan } from "./plan";

const NOW = Date.UTC(2026, 0, 2);
const plan = (q: string) => discoverPlan(new URLSearchParams(q), NOW);

function row(v: Record<string, string | number | null>, tags: Record<string, string> = {}): DiscoverRow {
  return { column: (n) => v[n] ?? null, tag: (k) => tags[k] ?? null, text: () => String(v.title ?? ""), at: () => Number(v.timestamp) };
}

describe("Sentry's query API plan", () => {
  test("fields: columns, aliases, tags, aggregates; unknown functions and non-numeric args refused", () => {
    expect(parseField("errors", "tags[flavor]")).toMatchObject({ kind: "tag", key: "flavor" });
    expect(parseField("errors", "browser.name")).toMatchObject({ kind: "tag", key: "browser.name" });
    expect(parseField("logs", "sentry.item_id")).toMatchObject({ kind: "column", column: "id" });
    expect(parseField("spans", "avg(span.duration)")).toMatchObject({ kind: "aggregate", fn: "avg", type: "duration" });
    expect(parseField("errors", "count_unique(user)")).toMatchObject({ fn: "count_unique", type: "integer" });
    expect(() => parseField("errors", "nope()")).toThrow(/nope/);
    expect(() => parseField("errors", "avg(title)")).toThrow(/numeric/);
    expect(() => parseField("spans", "last_seen()")).toThrow();
    expect(() => parseField("errors", "bad field")).toThrow(/Invalid field/);
  });

  test("window bounded to 90 days, cursor, per_page capped, sort must be a field", () => {
    const p = plan("field=id&statsPeriod=365d&per_page=500&cursor=0:100:0");
    expect(p.range.end - p.range.start).toBe(90 * 86_400_000);
    expect(p).toMatchObject({ limit: 100, offset: 100, dataset: "errors" });
    expect(() => plan("field=id&sort=-count()")).toThrow(/sort/);
    expect(() => plan("field=id&dataset=profiles")).toThrow(/dataset/);
    expect(() => plan("")).toThrow(/field/);
    // topEvents without a non-aggregate field has nothing to group by: the plain series.
    expect(statsPlan(new URLSearchParams("topEvents=5"), NOW).top).toBeNull();
    expect(() => statsPlan(new URLSearchParams("topEvents=11&field=title"), NOW)).toThrow(/top events/);
    expect(statsPlan(new URLSearchParams("topEvents=5&field=count()&field=title&excludeOther=0&yAxis=count()"), NOW).top).toMatchObject({
      groupBy: [{ name: "title" }],
      sort: { field: { name: "count()" }, desc: true },
      limit: 5,
      other: true,
    });
    // Grafana's sub-minute intervals are bucketed by the minute.
    expect(statsPlan(new URLSearchParams("interval=30s&statsPeriod=1h"), NOW).interval).toBe(60_000);
  });

  test("filters, grouping, aggregate sort, paging", () => {
    const rows = [
      row({ issue: "WEB-1", timestamp: 3, user: "id:1", title: "boom" }, { flavor: "sour" }),
      row({ issue: "WEB-1", timestamp: 2, user: "id:2", title: "boom" }, { flavor: "sweet" }),
      row({ issue: "WEB-2", timestamp: 1, user: null, title: "crash" }, { flavor: "sour" }),
    ];
    const p = plan("field=issue&field=count()&field=count_unique(user)&field=last_seen()&sort=-count()");
    expect(evaluate(p, rows).data).toEqual([
      { issue: "WEB-1", "count()": 2, "count_unique(user)": 2, "last_seen()": "1970-01-01T00:00:00+00:00" },
      { issue: "WEB-2", "count()": 1, "count_unique(user)": 0, "last_seen()": "1970-01-01T00:00:00+00:00" },
    ]);
    // Sentry's aliases order too: `-count` is `count()`, `count_unique_user` is `count_unique(user)`.
    expect(evaluate(plan("field=issue&field=count()&sort=-count"), rows).data[0]).toMatchObject({ issue: "WEB-1" });
    expect(plan("field=issue&field=count_unique(user)&sort=count_unique_user").sort?.desc).toBe(false);
    const f = plan("field=issue&query=flavor:sour%20!issue:web-2");
    expect(rows.filter((r) => rowMatches(f, r))).toHaveLength(1);
    const text = plan("field=issue&query=cra*");
    expect(rows.filter((r) => rowMatches(text, r))).toHaveLength(1);
    const paged = evaluate(plan("field=issue&per_page=2"), rows);
    expect(paged.hasMore).toBe(true);
    expect(evaluate(plan("field=count()&query=nothing"), []).data).toEqual([{ "count()": 0 }]);
    // epm over the window read (1 h here): 3 rows → 0.05 a minute.
    expect(evaluate(plan("field=epm()&statsPeriod=1h"), rows).data).toEqual([{ "epm()": 0.05 }]);
    const spans = [row({ "span.status": "ok" }), row({ "span.status": "internal_error" })];
    expect(evaluate(discoverPlan(new URLSearchParams("dataset=spans&field=failure_rate()"), NOW), spans).data).toEqual([
      { "failure_rate()": 0.5 },
    ]);
  });

  test("stats buckets", () => {
    const s = statsPlan(new URLSearchParams("yAxis=count()&statsPeriod=1h&interval=30m"), NOW);
    const series = statsSeries(
      s.axes as never,
      [row({ timestamp: NOW - 10 * 60_000 }), row({ timestamp: NOW - 40 * 60_000 }), row({ timestamp: NOW - 50 * 60_000 })],
      s.plan.range,
      s.interval,
    );
    expect(series.get("count()")).toEqual([
      [(NOW - 3_600_000) / 1000, [{ count: 2 }]],
      [(NOW - 1_800_000) / 1000, [{ count: 1 }]],
    ]);
  });

  test("top events: groups ranked by the sort, keys joined by `,` (null as None), the rest as Other", () => {
    const rows = [
      row({ environment: "prod", project: "web", timestamp: 1 }),
      row({ environment: "prod", project: "web", timestamp: 2 }),
      row({ environment: "prod", project: "api", timestamp: 3 }),
      row({ environment: null, project: "api", timestamp: 4 }),
      row({ environment: "Other", project: "x", timestamp: 5 }),
    ];
    const byCount = statsPlan(new URLSearchParams("topEvents=2&field=count()&field=project&field=environment&yAxis=count()"), NOW).top;
    expect(byCount).not.toBeNull();
    const top = topGroups(byCount as NonNullable<typeof byCount>, rows, 1000);
    expect(top.groups.map((g) => [g.key, g.rows.length])).toEqual([
      ["web,prod", 2],
      // ties keep the order first seen
      ["api,prod", 1],
    ]);
    expect(top.other).toHaveLength(2);
    const byEnv = statsPlan(new URLSearchParams("topEvents=5&field=environment&sort=environment"), NOW).top;
    const keys = topGroups(byEnv as NonNullable<typeof byEnv>, rows, 1000).groups.map((g) => g.key);
    // nulls last; a group named like the Other series is renamed, as Sentry does
    expect(keys).toEqual(["Other (environment)", "prod", "None"]);
    expect(() => statsPlan(new URLSearchParams("topEvents=5&field=environment&sort=release"), NOW)).toThrow(/sort/);
  });
});
