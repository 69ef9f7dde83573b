import { describe, expect, it } from "vitest";
import { metricsOfContainer } from "./trace-metrics";

const NOW = 1_795_000_000_000;

describe("trace_metric items (Sentry.metrics, SDK 11)", () => {
  it("reads counters, gauges and distributions with their attributes flattened", () => {
    const { records, dropped } = metricsOfContainer(
      {
        version: 2,
        items: [
          {
            timestamp: 1795505481.149,
            trace_id: "795166f67a9b40cfa012feb493ab6633",
            span_id: "91ce3a0fd8258d02",
            name: "checkout.attempts",
            type: "counter",
            value: 1,
            attributes: { gateway: { type: "string", value: "acme-pay" }, "sentry.release": { type: "string", value: "api@1" } },
          },
          { timestamp: 1795505481, trace_id: "", name: "queue.depth", type: "gauge", value: 7, unit: "none" },
          { timestamp: 1795505481, name: "payment.latency", type: "distribution", value: "120.5", unit: "millisecond" },
        ],
      },
      NOW,
    );
    expect(dropped).toBe(0);
    expect(records).toEqual([
      {
        traceId: "795166f67a9b40cfa012feb493ab6633",
        spanId: "91ce3a0fd8258d02",
        name: "checkout.attempts",
        type: "counter",
        unit: null,
        value: 1,
        timestamp: 1795505481149,
        attributes: JSON.stringify({ gateway: "acme-pay", "sentry.release": "api@1" }),
      },
      { traceId: null, spanId: null, name: "queue.depth", type: "gauge", unit: null, value: 7, timestamp: 1795505481000, attributes: "{}" },
      {
        traceId: null,
        spanId: null,
        name: "payment.latency",
        type: "distribution",
        unit: "millisecond",
        value: 120.5,
        timestamp: 1795505481000,
        attributes: "{}",
      },
    ]);
  });

  it("drops samples without a name, a known type or a finite value; a missing time is now", () => {
    const { records, dropped } = metricsOfContainer(
      {
        items: [
          { name: "", type: "counter", value: 1 },
          { name: "x", type: "set", value: 1 },
          { name: "x", type: "gauge", value: Number.NaN },
          { name: "x", type: "gauge", value: "lots" },
          { name: "ok", type: "GAUGE", value: 2 },
          "nonsense",
        ],
      },
      NOW,
    );
    expect(dropped).toBe(5);
    expect(records).toMatchObject([{ name: "ok", type: "gauge", value: 2, timestamp: NOW }]);
  });
});
