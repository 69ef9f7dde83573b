import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { capturedBody, corpusFiles, corpusJson } from "../../../test/pipeline/corpus";
import { parseEnvelope, parseJsonObject } from "../../ingest/parse-envelope";
import { normalizeEvent } from "../normalize-event";
import { DEFAULT_GROUPING_VERSION, GROUPING_VERSIONS, groupEvent } from "./index";

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");
const ctx = { receivedAt: Date.UTC(2026, 10, 22, 10, 44), clientIp: null, eventId: `${"0".repeat(31)}1` };
const group = (raw: unknown) => groupEvent(normalizeEvent(raw, ctx), "v1", sha256);

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../fixtures/grouping/v1");

describe("grouping v1: golden fixtures", () => {
  const files = fs.readdirSync(FIXTURES).filter((f) => f.endsWith(".json"));
  test.each(files)("%s", (file) => {
    const fx = JSON.parse(fs.readFileSync(path.join(FIXTURES, file), "utf8")) as { event: unknown; expected: Record<string, unknown> };
    const g = group(fx.event);
    const { title, culprit, type, source, components, metadata } = g;
    expect({ title, culprit, type, source, components, metadata }).toEqual(fx.expected);
    expect(g.version).toBe("v1");
    expect(g.hashes).toEqual([sha256(`v1\u0000${components.join(" ⋄ ")}`)]);
  });

  test("the registry is versioned and unknown versions fall back to the default", () => {
    expect(Object.keys(GROUPING_VERSIONS)).toEqual(["v1", "v2", "v3"]);
    expect(DEFAULT_GROUPING_VERSION).toBe("v3");
    const e = normalizeEvent({ message: "x" }, ctx);
    expect(groupEvent(e, "v999", sha256).version).toBe(DEFAULT_GROUPING_VERSION);
  });

  test("the hash is injected: core computes no digest itself", () => {
    const g = groupEvent(normalizeEvent({ message: "hello" }, ctx), "v1", (s) => `H(${s})`);
    expect(g.hashes).toEqual(["H(v1\u0000hello)"]);
  });
});

describe("grouping v1: corpus goldens", () => {
  test("node SDK capture: Error: boom", () => {
    const env = parseEnvelope(capturedBody("node-sdk-envelope.txt", 8), {
      maxHeaderLine: 8192,
      maxEventSize: 1 << 20,
      maxAttachmentSize: 1 << 20,
    });
    const raw = parseJsonObject(env.items.find((i) => i.headers.type === "event")?.payload ?? new Uint8Array(), "event");
    const g = group(raw);
    expect(g).toMatchObject({
      title: "Error: boom",
      type: "error",
      culprit: "/home/user/app1/sentry/node-client.mjs",
      components: ["Error: boom"],
      metadata: { type: "Error", value: "boom", filename: "/home/user/app1/sentry/node-client.mjs" },
    });
  });

  test("bugsink/top-level-message-as-str: the exception wins over the message", () => {
    const g = group(corpusJson("bugsink/top-level-message-as-str.json"));
    expect(g.title).toBe("myMessageIsWronglyAString: event.message should not have been a string - look elsewhere in this event data");
    expect(g.type).toBe("error");
  });

  test("bugsink/top-level-message-as-str-no-exception: a message event", () => {
    const g = group(corpusJson("bugsink/top-level-message-as-str-no-exception.json"));
    expect(g).toMatchObject({ title: "I am the GO SDK and I'm sorry I put a string here", type: "default", source: "message" });
  });

  test("sentry/javascript-message", () => {
    const g = group(corpusJson("sentry/javascript-message.json"));
    expect(g).toMatchObject({ title: "event", type: "default", components: ["event"], metadata: { title: "event" } });
  });

  test("sentry/java-chained: the last exception is the main one", () => {
    const g = group(corpusJson("sentry/java-chained.json"));
    expect(g).toMatchObject({
      title: "LifecycleException: Failed to start component [Connector[HTTP/1.1-8080]]",
      type: "error",
      components: ["LifecycleException: Failed to start component [Connector[HTTP/1.1-8080]]"],
      culprit: "main (Application.java)",
    });
  });

  test("logentry params do not split: both python cleanup events share a hash", () => {
    const a = group(corpusJson("bugsink/logmessage-w-params.json"));
    const b = group(corpusJson("bugsink/logmessage-w-params-dict.json"));
    expect(a.components).toEqual(["Error during cleanup of %s: %s"]);
    expect(b.components).toEqual(["Error during cleanup of %(one)s: %(two)s"]);
  });

  test("custom fingerprints: int entries stringified", () => {
    expect(group(corpusJson("sentry/custom-fingerprint-int.json")).components).toEqual([
      "celery",
      "123",
      "sentry.tasks.store.process_event",
    ]);
  });

  test.each(corpusFiles())("%s groups without throwing, with a title", (file) => {
    const g = group(corpusJson(file));
    expect(g.title.length).toBeGreaterThan(0);
    expect(g.title.length).toBeLessThanOrEqual(200);
    expect(g.culprit.length).toBeLessThanOrEqual(200);
    expect(g.hashes[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(g.components.length).toBeGreaterThan(0);
  });
});

describe("grouping v1 against Sentry's groups (group_N_event_M)", () => {
  const byFile = new Map<string, string>();
  const groups = new Map<string, string[]>();
  for (const f of corpusFiles()) {
    const m = /group_(\d+)_event_\d+\.json$/.exec(f);
    if (!m?.[1]) continue;
    byFile.set(f, group(corpusJson(f)).hashes[0] ?? "");
    groups.set(m[1], [...(groups.get(m[1]) ?? []), f]);
  }

  test("events of the same Sentry group share a v1 hash", () => {
    const split = [...groups.entries()].filter(([, files]) => new Set(files.map((f) => byFile.get(f))).size > 1).map(([n]) => n);
    // v1 keys on "type: value" only; every same-group pair of the corpus agrees on it.
    expect(split).toEqual([]);
  });

  test("known over-merges of v1 (different Sentry groups, same v1 hash) — for the full algorithm", () => {
    const byHash = new Map<string, Set<string>>();
    for (const [n, files] of groups)
      for (const f of files) byHash.set(byFile.get(f) ?? "", (byHash.get(byFile.get(f) ?? "") ?? new Set()).add(n));
    const merged = [...byHash.values()].filter((s) => s.size > 1).map((s) => [...s].sort((a, b) => Number(a) - Number(b)));
    merged.sort((a, b) => Number(a[0]) - Number(b[0]));
    // Minidumps whose synthetic "type: value" is just the signal/exception code; Sentry told them
    // apart by their stack traces, which v1 ignores.
    expect(merged).toEqual([
      ["275", "389", "428"],
      ["289", "294", "313", "319", "332"],
      ["432", "445"],
    ]);
  });
});
