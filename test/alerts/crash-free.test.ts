/**
 * The crash-free trigger through the real digest and the real delivery loop, on both databases:
 * sessions arrive as the SDKs send them (`session` updates, `sessions` aggregates), a release whose
 * crash-free rate drops below the rule's threshold sends exactly ONE message to a webhook receiver
 * started here; more crashes, re-sent envelopes, healthy releases, releases below minSessions and
 * other environments send nothing; recovery re-arms the rule for the next drop.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadConfig } from "../../src/config";
import type { ReleaseAlert } from "../../src/core/alerts/message";
import { deliverDue } from "../../src/pipeline/alerts/delivery-loop";
import type { SendDeps } from "../../src/pipeline/alerts/send-notification";
import { listSessionAggregates } from "../../src/storage/releases/sessions";
import { dialects } from "../helpers/test-db";
import { MINUTE } from "../lifecycle/helpers";
import { silentLog } from "../pipeline/helpers";
import { type AlertSession, type AlertWorld, createAlertWorld, type Received, startReceiver } from "./helpers";

const PUBLIC_URL = "https://errata.example";

describe.each(await dialects())("crash-free alerts on %s", (dialect) => {
  let w: AlertWorld;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  let deps: SendDeps;
  let ruleId: number;

  beforeAll(async () => {
    w = await createAlertWorld(dialect);
    rx = await startReceiver();
    const config = loadConfig({ ALERTS_ALLOW_PRIVATE_WEBHOOKS: "true", ALERTS_TIMEOUT_MS: "5000" });
    deps = { db: w.db, alerts: config.alerts, smtp: null, publicUrl: PUBLIC_URL, now: () => w.clock.now };
    const hook = await w.services.alerts.createChannel(w.admin, "acme", "web", {
      kind: "webhook",
      name: "release health",
      config: { url: `${rx.url}/crash-free`, secret: "crash-free-signing" },
    });
    ruleId = (
      await w.services.alerts.createRule(w.admin, "acme", "web", {
        name: "Crashing releases",
        triggers: { crashFree: { belowPercent: 95, minSessions: 50 } },
        filters: { environments: ["production"] },
        channelIds: [hook.id],
      })
    ).id;
  });
  afterAll(async () => {
    await rx?.close();
    await w?.close();
  });

  const sessions = (n: number, s: AlertSession): AlertSession[] => Array.from({ length: n }, () => ({ ...s }));
  const ruleRows = async () => (await w.outbox()).filter((n) => n.ruleId === ruleId);
  const messageOf = (r: Received | undefined) => JSON.parse(r?.body ?? "null") as { version: number; url: string; message: ReleaseAlert };
  /** Runs the delivery loop until nothing is due; answers what the receiver got from the rule (default: the main one). */
  const deliver = async (id = ruleId): Promise<Received[]> => {
    while ((await deliverDue(w.db, deps, silentLog)) > 0) {}
    return rx.received.filter((r) => r.path === "/crash-free" && messageOf(r).message.rule.id === id);
  };
  const tick = (ms: number) => {
    w.clock.now += ms;
  };

  test("the rule stores its trigger; a release with mostly crashed sessions sends exactly one message", async () => {
    const rule = await w.services.alerts.getRule(w.admin, "acme", "web", ruleId);
    expect(rule.triggers).toEqual({
      newIssue: false,
      regression: false,
      unignored: false,
      frequency: null,
      crashFree: { belowPercent: 95, minSessions: 50 },
      match: "any",
    });
    await w.sendSessions(...sessions(40, { release: "web@1.0.0" }), ...sessions(30, { release: "web@1.0.0", end: "crashed" }));
    const rows = await ruleRows();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ kind: "alert", trigger: "crash_free", issueId: null, status: "pending" });
    const got = await deliver();
    expect(got).toHaveLength(1);
    const body = messageOf(got[0]);
    expect(body).toMatchObject({
      version: 1,
      url: `${PUBLIC_URL}/acme/releases/web%401.0.0`,
      message: {
        v: 1,
        kind: "release",
        trigger: "crash_free",
        rule: { id: ruleId, name: "Crashing releases" },
        org: { slug: "acme" },
        project: { slug: "web" },
        release: { version: "web@1.0.0", environments: ["production"], sessions: 70, crashed: 30 },
        threshold: { belowPercent: 95, minSessions: 50 },
        path: "/acme/releases/web%401.0.0",
      },
    });
    expect(body.message.release.crashFreeSessions).toBeCloseTo(40 / 70, 10);
    expect(got[0]?.headers["x-errata-signature"]).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect((await w.services.alerts.deliveries(w.admin, "acme", "web", { ruleId }))[0]).toMatchObject({
      status: "sent",
      title: "web@1.0.0: Crash-free sessions 57.14% (below 95%)",
    });
  });

  test("more crashed sessions of the same release, and the same envelopes processed again, send nothing more", async () => {
    tick(2 * 60 * MINUTE);
    await w.sendSessions(...sessions(25, { release: "web@1.0.0", end: "crashed" }));
    await w.sendSessionAggregates({ release: "web@1.0.0", crashed: 10 });
    expect(await ruleRows()).toHaveLength(1);
    // The queue is at-least-once: every session envelope digested a second time changes neither
    // the counters (the session states) nor the latch.
    const before = await listSessionAggregates(w.db, {
      projectIds: [w.projectId],
      from: 0,
      to: w.clock.now + 86_400_000,
      release: "web@1.0.0",
    });
    await w.resend(w.sentEnvelopes.filter((b) => b.includes('"type":"session"')));
    const after = await listSessionAggregates(w.db, {
      projectIds: [w.projectId],
      from: 0,
      to: w.clock.now + 86_400_000,
      release: "web@1.0.0",
    });
    expect(after).toEqual(before);
    expect(await ruleRows()).toHaveLength(1);
    expect(await deliver()).toHaveLength(1);
  });

  test("a healthy release sends nothing (session updates and aggregates alike)", async () => {
    await w.sendSessions(...sessions(97, { release: "web@2.0.0" }), ...sessions(3, { release: "web@2.0.0", end: "crashed" }));
    await w.sendSessionAggregates({ release: "web@2.0.1", exited: 990, errored: 5, crashed: 5 });
    // errored and abnormal sessions are not crashes: 100 % crash-free
    await w.sendSessionAggregates({ release: "web@2.0.2", exited: 10, errored: 60, abnormal: 30 });
    expect(await ruleRows()).toHaveLength(1);
  });

  test("below minSessions nothing is sent, however many crash; reaching it sends", async () => {
    await w.sendSessions(...sessions(49, { release: "web@3.0.0", end: "crashed" }));
    expect(await ruleRows()).toHaveLength(1);
    await w.sendSessions({ release: "web@3.0.0", end: "crashed" });
    const rows = await ruleRows();
    expect(rows).toHaveLength(2);
    expect(JSON.parse(rows[1]?.payload ?? "")).toMatchObject({ release: { version: "web@3.0.0", sessions: 50, crashed: 50 } });
    expect(await deliver()).toHaveLength(2);
  });

  test("the rule's environments decide which sessions count; other issue filters do not apply", async () => {
    await w.sendSessions(...sessions(60, { release: "web@4.0.0", environment: "staging", end: "crashed" }));
    expect(await ruleRows()).toHaveLength(2);
    // staging crashes do not count towards production's rate either
    await w.sendSessions(...sessions(60, { release: "web@4.0.0", environment: "production" }));
    expect(await ruleRows()).toHaveLength(2);
    // a rule with a level filter and a search query still watches releases
    const other = await w.services.alerts.createRule(w.admin, "acme", "web", {
      name: "Any environment",
      triggers: { crashFree: { belowPercent: 80, minSessions: 100 } },
      filters: { levels: ["fatal"], query: "is:unresolved" },
      channelIds: (await w.services.alerts.getRule(w.admin, "acme", "web", ruleId)).channelIds,
    });
    await w.sendSessions({ release: "web@4.0.0", environment: "staging" });
    const all = (await w.outbox()).filter((n) => n.ruleId === other.id);
    expect(all).toHaveLength(1);
    expect(JSON.parse(all[0]?.payload ?? "")).toMatchObject({
      release: { version: "web@4.0.0", environments: [], sessions: 121, crashed: 60 },
    });
    expect(await deliver(other.id)).toHaveLength(1);
    await w.services.alerts.deleteRule(w.admin, "acme", "web", other.id);
  });

  test("once the release recovers above the threshold, the next drop sends again", async () => {
    // web@1.0.0: 105 sessions, 65 crashed so far; 1300 healthy ones bring it to 95.37 %
    await w.sendSessionAggregates({ release: "web@1.0.0", exited: 1300 });
    expect(await ruleRows()).toHaveLength(2);
    tick(MINUTE);
    await w.sendSessionAggregates({ release: "web@1.0.0", crashed: 100 });
    const rows = await ruleRows();
    expect(rows).toHaveLength(3);
    expect(JSON.parse(rows[2]?.payload ?? "")).toMatchObject({ release: { version: "web@1.0.0", sessions: 1505, crashed: 165 } });
    const got = await deliver();
    expect(got).toHaveLength(3);
    expect(new Set(got.map((r) => r.headers["x-errata-delivery"])).size).toBe(3);
  });
});
