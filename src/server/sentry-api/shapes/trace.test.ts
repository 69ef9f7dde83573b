import { describe, expect, it } from "vitest";
import type { TraceTreeSpan } from "../../../storage/events/trace-reads";
import { type SentryTraceSpan, sentryTraceTree } from "./trace";

const TRACE = "a".repeat(32);

function span(spanId: string, parentSpanId: string | null, start: number, extra: Partial<TraceTreeSpan> = {}): TraceTreeSpan {
  return {
    projectId: 1,
    traceId: TRACE,
    spanId: spanId.padEnd(16, "0"),
    parentSpanId: parentSpanId === null ? null : parentSpanId.padEnd(16, "0"),
    segmentName: null,
    name: `span ${spanId}`,
    op: "db",
    status: "ok",
    start,
    end: start + 10,
    attributes: "{}",
    sdkName: "",
    ...extra,
  };
}

const ids = (nodes: unknown[]) => nodes.map((n) => (n as SentryTraceSpan).span_id.replace(/0+$/, ""));
const tree = (spans: TraceTreeSpan[], extra: string[] = []) => sentryTraceTree(spans, [], () => "web", extra) as SentryTraceSpan[];

describe("sentryTraceTree", () => {
  it("nests spans under their parents, children by start, and names each span's transaction", () => {
    const [root] = tree([span("1", null, 0, { segmentName: "GET /" }), span("2", "1", 5), span("3", "1", 7), span("4", "2", 6)]);
    expect(root?.is_transaction).toBe(true);
    expect(ids(root?.children ?? [])).toEqual(["2", "3"]);
    expect(ids(root?.children[0]?.children ?? [])).toEqual(["4"]);
    expect(root?.children[0]?.transaction).toBe("GET /");
    expect(root?.children[0]?.transaction_id).toBe(root?.span_id);
  });

  it("keeps the spans of a parent cycle as roots and hangs what leads into the cycle under it", () => {
    // 5 → 6 → 5 is a cycle; 7's parent is 5 (on it, not part of it); 8's parent is itself.
    const roots = tree([span("5", "6", 0), span("6", "5", 1), span("7", "5", 2), span("8", "8", 3)]);
    expect(ids(roots)).toEqual(["5", "6", "8"]);
    expect(ids(roots[0]?.children ?? [])).toEqual(["7"]);
  });

  it("reports the SDK's name read with the span and attributes only when asked for by name", () => {
    const spans = [span("1", null, 0, { sdkName: "sentry.javascript.node", attributes: '{"http.method":"GET","n":1}' })];
    const [plain] = tree(spans);
    expect(plain?.sdk_name).toBe("sentry.javascript.node");
    expect(plain).not.toHaveProperty("additional_attributes");
    const [asked] = tree(spans, ["http.method", "missing"]);
    expect(asked?.additional_attributes).toEqual({ "http.method": "GET" });
  });
});
