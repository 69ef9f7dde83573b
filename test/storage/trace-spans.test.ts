/**
 * A trace's spans as the trace page and Sentry's `trace/{id}/` read them (traceSpans), on both
 * databases: oldest first whatever order they were written in, only the projects asked for, the
 * SDK's name taken out of the attributes by the database, and the attributes themselves only
 * when asked for.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { SpanRecord } from "../../src/core/traces";
import type { Db } from "../../src/storage/db";
import { writeTx } from "../../src/storage/dialect";
import { traceSpans } from "../../src/storage/events/trace-reads";
import { insertSpans } from "../../src/storage/events/traces";
import { dialects, openTestDb } from "../helpers/test-db";

const TRACE = "7".repeat(32);

function span(n: number, start: number, attributes: Record<string, unknown>): SpanRecord {
  return {
    traceId: TRACE,
    spanId: String(n).padStart(16, "0"),
    parentSpanId: n === 1 ? null : "1".padStart(16, "0"),
    segmentName: "GET /checkout",
    name: `span ${n}`,
    op: "db",
    status: "ok",
    start,
    end: start + 5,
    attributes: JSON.stringify(attributes),
  };
}

describe.each(await dialects())("a trace's spans (%s)", (dialect) => {
  let db: Db;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ db, close } = await openTestDb(dialect));
    await writeTx(db, async (tx) => {
      await insertSpans(tx, 1, 1, [
        span(3, 1_030, { "sentry.sdk.name": 7 }),
        span(1, 1_000, { "sentry.sdk.name": "sentry.javascript.node", "http.method": "GET" }),
        span(2, 1_020, { nested: { "sentry.sdk.name": "not this one" }, note: 'says "sentry.sdk.name"' }),
      ]);
      // Another project's part of the trace, and another trace.
      await insertSpans(tx, 2, 1, [span(4, 1_010, { "sentry.sdk.name": "sentry.python" })]);
      await insertSpans(tx, 1, 1, [{ ...span(5, 900, {}), traceId: "8".repeat(32) }]);
    });
  });
  afterAll(async () => close());

  test("oldest first, in the projects asked for, with the SDK's name and no attributes unless asked", async () => {
    const spans = await traceSpans(db, [1, 2], TRACE, 100, { sdkName: true });
    expect(spans.map((s) => [s.spanId.slice(-1), s.projectId, s.sdkName, s.attributes])).toEqual([
      ["1", 1, "sentry.javascript.node", "{}"],
      ["4", 2, "sentry.python", "{}"],
      ["2", 1, "", "{}"],
      ["3", 1, "", "{}"],
    ]);
    expect(spans[0]).toMatchObject({ traceId: TRACE, segmentName: "GET /checkout", start: 1_000, end: 1_005, parentSpanId: null });
    expect((await traceSpans(db, [1], TRACE, 100)).map((s) => [s.spanId.slice(-1), s.sdkName])).toEqual([
      ["1", ""],
      ["2", ""],
      ["3", ""],
    ]);
  });

  test("attributes when asked for, and limit + 1 read to tell a cut", async () => {
    const spans = await traceSpans(db, [1, 2], TRACE, 2, { attributes: true });
    expect(spans).toHaveLength(3);
    expect(JSON.parse(spans[0]?.attributes ?? "")).toEqual({ "sentry.sdk.name": "sentry.javascript.node", "http.method": "GET" });
  });
});
