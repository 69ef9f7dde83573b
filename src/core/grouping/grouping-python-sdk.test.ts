/**
 * Grouping v3 on events recorded from Debian's python3-sentry-sdk 1.9.10
 * (test/fixtures/python-sdk/capture.py): the same bug with different ids joins one issue, another
 * code path is another issue, and a chained exception groups by its stacks, not its messages.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { normalizeEvent } from "../normalize-event";
import { groupEvent } from "./index";

const DIR = path.join(__dirname, "../../../test/fixtures/python-sdk");
const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");
const recorded = (name: string): Record<string, unknown> => JSON.parse(fs.readFileSync(path.join(DIR, `${name}.json`), "utf8"));
const group = (raw: unknown, version = "v3") =>
  groupEvent(normalizeEvent(raw, { receivedAt: Date.UTC(2026, 10, 27), clientIp: null, eventId: "0".repeat(32) }), version, sha256);

describe("v3 on real python3-sentry-sdk events", () => {
  test("the recordings are the SDK's own", () => {
    expect(recorded("key-error-a")).toMatchObject({ platform: "python", sdk: { name: "sentry.python", version: "1.9.10" } });
  });

  test("the same KeyError with another key joins the issue; another code path does not", () => {
    const a = group(recorded("key-error-a"));
    const b = group(recorded("key-error-b"));
    const refund = group(recorded("key-error-refund"));
    expect(a.source).toBe("exception");
    expect(a.variants[0]).toBe("app");
    expect(a.hashes).toEqual(b.hashes);
    expect(a.hashes.some((h) => refund.hashes.includes(h))).toBe(false);
    // Python frames group by module, function and context line; the in-app ones decide.
    expect(a.components).toContain('app: frame[2] module=__main__ function=load_order context="return ORDERS[order_id]"');
    // The value ("18" vs "4711") never contributes once a stack does.
    expect(a.components.join("\n")).not.toContain("value=");
  });

  test("a chained exception groups by both stacks and both types", () => {
    const chained = group(recorded("chained"));
    const lines = chained.components.join("\n");
    expect(lines).toContain("app: exception[0] type=KeyError");
    expect(lines).toContain("app: exception[1] type=OrderError");
    expect(lines).toContain("function=load_order");
    expect(lines).toContain('function=charge context="raise OrderError(f\\"order {order_id} could not be charged\\") from err"');
    expect(lines).not.toContain("value=");
    // The same chain with another order id is the same issue.
    const again = structuredClone(recorded("chained")) as { exception: { values: Array<{ value: string }> } };
    for (const v of again.exception.values) v.value = v.value.replace("99", "100");
    expect(group(again).hashes).toEqual(chained.hashes);
    // Without the cause it is another issue.
    const alone = structuredClone(recorded("chained")) as { exception: { values: unknown[] } };
    alone.exception.values = alone.exception.values.slice(1);
    expect(group(alone).hashes.some((h) => chained.hashes.includes(h))).toBe(false);
  });

  test("an error raised in the standard library keeps its own issue", () => {
    const json = group(recorded("stdlib-json"));
    expect(json.components.join("\n")).toContain("module=json.decoder function=raw_decode");
    expect(json.hashes.some((h) => group(recorded("key-error-a")).hashes.includes(h))).toBe(false);
  });
});
