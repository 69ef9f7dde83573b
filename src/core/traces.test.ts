import { describe, expect, it } from "vitest";
import { autogroup, logsOfContainer, segmentRoots, spansOfContainer, spansOfTransaction, TRACE_LIMITS, waterfall } from "./traces";

const T = "795166f67a9b40cfa012feb493ab6633";

describe("span items (v2, what SDK 11 streams)", () => {
  it("reads spans with their attributes flattened", () => {
    const { records, dropped } = spansOfContainer({
      version: 2,
      items: [
        {
          name: "SELECT * FROM carts",
          span_id: "91ce3a0fd8258d02",
          trace_id: T,
          parent_span_id: "a1b86bac33d0fd8e",
          start_timestamp: 1795505481.148724,
          end_timestamp: 1795505481.1978025,
          status: "ok",
          attributes: { "sentry.op": { value: "db", type: "string" }, "sentry.segment.name": { value: "GET /checkout", type: "string" } },
        },
        { name: "no trace", span_id: "91ce3a0fd8258d03", start_timestamp: 1 },
      ],
    });
    expect(dropped).toBe(1);
    expect(records).toEqual([
      {
        traceId: T,
        spanId: "91ce3a0fd8258d02",
        parentSpanId: "a1b86bac33d0fd8e",
        segmentName: "GET /checkout",
        name: "SELECT * FROM carts",
        op: "db",
        status: "ok",
        start: 1795505481149,
        end: 1795505481198,
        attributes: JSON.stringify({ "sentry.op": "db", "sentry.segment.name": "GET /checkout" }),
        segment: false,
      },
    ]);
  });

  it("caps the records of one item and the size of attributes", () => {
    const many = Array.from({ length: TRACE_LIMITS.perItem + 5 }, (_, i) => ({
      span_id: i.toString(16).padStart(16, "0"),
      trace_id: T,
      start_timestamp: 1000 + i,
      attributes: i === 0 ? { big: { value: "x".repeat(40_000) }, small: { value: 1 } } : {},
    }));
    const { records, dropped } = spansOfContainer({ items: many });
    expect(records).toHaveLength(TRACE_LIMITS.perItem);
    expect(dropped).toBe(5);
    expect(JSON.parse(records[0].attributes)).toEqual({ small: 1, "errata.dropped_attributes": 1 });
  });

  it("coerces timestamps sent in ms or µs and never ends before it starts", () => {
    const [s] = spansOfContainer({
      items: [{ span_id: "0000000000000001", trace_id: T, start_timestamp: 1795505481148724, end_timestamp: 5 }],
    }).records;
    expect(s.start).toBe(1795505481149);
    expect(s.end).toBe(s.start);
  });
});

describe("transactions", () => {
  it("become a root span plus their children", () => {
    const { records, dropped } = spansOfTransaction({
      type: "transaction",
      transaction: "GET /checkout",
      start_timestamp: 100,
      timestamp: 101.5,
      contexts: { trace: { trace_id: T, span_id: "a1b86bac33d0fd8e", op: "http.server", status: "ok" } },
      spans: [
        {
          span_id: "91ce3a0fd8258d02",
          parent_span_id: "a1b86bac33d0fd8e",
          op: "db",
          description: "SELECT 1",
          start_timestamp: 100.2,
          timestamp: 100.4,
        },
      ],
    });
    expect(dropped).toBe(0);
    expect(records.map((r) => [r.name, r.op, r.parentSpanId, r.start, r.end, r.segmentName])).toEqual([
      ["GET /checkout", "http.server", null, 100_000, 101_500, "GET /checkout"],
      ["SELECT 1", "db", "a1b86bac33d0fd8e", 100_200, 100_400, "GET /checkout"],
    ]);
    expect(records[1].traceId).toBe(T);
  });
});

describe("log items (v2)", () => {
  it("reads body, level, trace and attributes; odd levels become info", () => {
    const { records, dropped } = logsOfContainer({
      version: 2,
      items: [
        {
          timestamp: 1795505481.2011943,
          level: "error",
          body: "payment failed for user-1",
          trace_id: T,
          attributes: {
            cart: { value: 42, type: "integer" },
            "sentry.trace.parent_span_id": { value: "a1b86bac33d0fd8e", type: "string" },
          },
        },
        { timestamp: 1795505481, level: "LOUD", body: { structured: true } },
        { level: "info", body: "no timestamp" },
      ],
    });
    expect(dropped).toBe(1);
    expect(records[0]).toMatchObject({
      traceId: T,
      spanId: "a1b86bac33d0fd8e",
      level: "error",
      body: "payment failed for user-1",
      timestamp: 1795505481201,
    });
    expect(JSON.parse(records[0].attributes).cart).toBe(42);
    expect(records[1]).toMatchObject({ traceId: null, level: "info", body: '{"structured":true}' });
  });
});

describe("waterfall", () => {
  const span = (id: string, parent: string | null, start: number, end: number) => ({
    traceId: T,
    spanId: id,
    parentSpanId: parent,
    segmentName: null,
    name: id,
    op: null,
    status: null,
    start,
    end,
    attributes: "{}",
  });
  it("orders parents before children with depth and offsets", () => {
    const { rows } = waterfall([span("c", "a", 50, 100), span("a", null, 0, 100), span("b", "a", 10, 20), span("orphan", "zz", 90, 100)]);
    expect(rows.map((r) => [r.span.spanId, r.depth, r.left, r.width])).toEqual([
      ["a", 0, 0, 1],
      ["b", 1, 0.1, 0.1],
      ["c", 1, 0.5, 0.5],
      ["orphan", 0, 0.9, 0.1],
    ]);
  });
  it("shows spans caught in a parent cycle once each", () => {
    const { rows } = waterfall([span("x", "y", 0, 1), span("y", "x", 0, 1)]);
    expect(rows.map((r) => r.span.spanId).sort()).toEqual(["x", "y"]);
  });
});

describe("segments (the trace list's rows)", () => {
  it("a transaction's root starts a segment even when it continues another service's span; its children do not", () => {
    const { records } = spansOfTransaction({
      transaction: "POST /api/pay",
      start_timestamp: 1000,
      timestamp: 1001,
      contexts: { trace: { trace_id: T, span_id: "b".repeat(16), parent_span_id: "a".repeat(16), op: "http.server" } },
      spans: [{ span_id: "c".repeat(16), parent_span_id: "b".repeat(16), start_timestamp: 1000, timestamp: 1000.5, op: "db" }],
    });
    expect(records.map((r) => [r.spanId[0], r.segment])).toEqual([
      ["b", true],
      ["c", false],
    ]);
  });

  it("a v2 span is a segment when the SDK says so or when it has no parent", () => {
    const span = (id: string, parent: string | null, extra: Record<string, unknown> = {}) => ({
      trace_id: T,
      span_id: id.repeat(16),
      parent_span_id: parent,
      start_timestamp: 1000,
      end_timestamp: 1001,
      ...extra,
    });
    const { records } = spansOfContainer({
      items: [span("a", null), span("b", "a".repeat(16), { is_segment: true }), span("c", "b".repeat(16))],
    });
    expect(records.map((r) => r.segment)).toEqual([true, true, false]);
  });

  it("segmentRoots: each span's nearest entry span — no parent kept, or a parent in another project", () => {
    const spans = [
      { spanId: "a", parentSpanId: null, projectId: 1 },
      { spanId: "b", parentSpanId: "a", projectId: 1 },
      { spanId: "c", parentSpanId: "b", projectId: 2 },
      { spanId: "d", parentSpanId: "c", projectId: 2 },
      { spanId: "e", parentSpanId: "gone", projectId: 2 },
      { spanId: "x", parentSpanId: "y", projectId: 3 },
      { spanId: "y", parentSpanId: "x", projectId: 3 },
    ];
    const roots = segmentRoots(spans);
    expect(Object.fromEntries(["a", "b", "c", "d", "e"].map((id) => [id, roots.get(id)]))).toEqual({
      a: "a",
      b: "a",
      c: "c",
      d: "c",
      e: "e",
    });
    // A parent cycle ends; every span gets a root.
    expect(roots.get("x")).toBeDefined();
    expect(roots.get("y")).toBeDefined();
  });
});

describe("sibling autogrouping", () => {
  type Row = { spanId: string; depth: number; key: string; left: number; width: number; keep: boolean };
  const row = (spanId: string, depth: number, key: string, left = 0, keep = false): Row => ({ spanId, depth, key, left, width: 0.1, keep });
  const rules = { id: (r: Row) => r.spanId, alike: (a: Row, b: Row) => a.key === b.key, keep: (r: Row) => r.keep };
  it("folds a run of five or more alike siblings with their subtrees; keeps the rest and spans with errors", () => {
    const rows = [
      row("root", 0, "root"),
      ...[1, 2, 3, 4, 5, 6].flatMap((n) => [row(`q${n}`, 1, "db SELECT", n / 10), row(`q${n}c`, 2, "pool")]),
      row("other", 1, "http"),
      ...[1, 2, 3, 4].map((n) => row(`r${n}`, 1, "cache get")),
      ...[1, 2, 3, 4, 5].map((n) => row(`e${n}`, 1, "retry", 0, n === 3)),
    ];
    const out = autogroup(rows, rules, new Set());
    expect(out.map((r) => (r.kind === "group" ? `${r.first.spanId}×${r.count}/${r.hidden.length}` : r.row.spanId))).toEqual([
      "root",
      "q1×6/12",
      "other",
      "r1",
      "r2",
      "r3",
      "r4",
      "e1",
      "e2",
      "e3",
      "e4",
      "e5",
    ]);
    const group = out[1] as { left: number; width: number };
    expect(group.left).toBeCloseTo(0.1);
    expect(group.width).toBeCloseTo(0.6);
    // Expanded: every span of the run shown.
    expect(autogroup(rows, rules, new Set(["q1"])).length).toBe(rows.length);
  });
});
