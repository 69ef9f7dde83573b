/**
 * Alert triggers through the real digest on both databases: each trigger fires exactly when it
 * should and not when a filter excludes it; the notification rows are written by the digest's
 * own transaction; throttle, spike protection, the hourly cap with its digest message, mutes.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { IssueAlert } from "../../src/core/alerts/message";
import { summariseHeld } from "../../src/pipeline/alerts/delivery-loop";
import { fromSentryRule, sentryRule } from "../../src/server/sentry-api/shapes/alert-rule";
import { dialects } from "../helpers/test-db";
import { codeOf, MINUTE } from "../lifecycle/helpers";
import { type AlertWorld, createAlertWorld } from "./helpers";

describe.each(await dialects())("alert triggers on %s", (dialect) => {
  let w: AlertWorld;
  let channelId: number;
  beforeAll(async () => {
    w = await createAlertWorld(dialect);
    channelId = (
      await w.services.alerts.createChannel(w.admin, "acme", "web", {
        kind: "webhook",
        name: "hook",
        config: { url: "https://hooks.example/x" },
      })
    ).id;
  });
  afterAll(async () => w?.close());

  const rule = async (input: Record<string, unknown>) => {
    const r = await w.services.alerts.createRule(w.admin, "acme", "web", {
      name: "t",
      channelIds: [channelId],
      throttleMinutes: 0,
      ...input,
    });
    return r.id;
  };
  const of = async (ruleId: number) => (await w.outbox()).filter((n) => n.ruleId === ruleId);
  const off = (id: number) =>
    w.services.alerts.updateRule(w.admin, "acme", "web", id, { name: "t", enabled: false, triggers: { newIssue: true } });
  const tick = (ms = 1000) => {
    w.clock.now += ms;
  };

  test("without SMTP a new project's default rule (new issues and regressions) has no channel, and the overview says mail is not set up", async () => {
    const o = await w.services.alerts.overview(w.owner, "acme", "web");
    expect(o.emailConfigured).toBe(false);
    const def = o.rules[0];
    expect(def).toMatchObject({
      name: "New issues and regressions",
      enabled: true,
      triggers: { newIssue: true, regression: true, unignored: false },
      channelIds: [],
    });
    expect(o.channels.filter((c) => c.kind === "email")).toEqual([]);
    // nothing to deliver, so no "SMTP is not configured" failures in the log
    await w.sendEvents({ message: "no-smtp-1" });
    expect((await w.outbox()).filter((n) => n.ruleId === def?.id)).toEqual([]);
    // the admin can change it: switched off here so the other tests count only their own rules
    await off(def?.id ?? 0);
    expect((await w.services.alerts.overview(w.owner, "acme", "web")).rules[0]?.enabled).toBe(false);
    expect(await codeOf(w.services.alerts.createRule(w.member, "acme", "web", { name: "x", triggers: { newIssue: true } }))).toBe(
      "forbidden",
    );
  });

  test("with SMTP a new project's default rule e-mails its members", async () => {
    const m = await createAlertWorld(dialect, { SMTP_HOST: "127.0.0.1" });
    try {
      const o = await m.services.alerts.overview(m.owner, "acme", "web");
      expect(o.emailConfigured).toBe(true);
      const def = o.rules[0];
      expect(def?.channelIds).toHaveLength(1);
      expect(o.channels.find((c) => c.id === def?.channelIds[0])).toMatchObject({ kind: "email", target: "project members" });
    } finally {
      await m.close();
    }
  });

  test("new issue: one message per new issue, none for its later events; the snapshot has what a message shows", async () => {
    const id = await rule({ triggers: { newIssue: true } });
    await w.sendEvents({ message: "new-1", environment: "production", release: "1.0.0", tags: { browser: "Firefox" } });
    await w.sendEvents({ message: "new-1" }, { message: "new-1" });
    const rows = await of(id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: "pending", kind: "alert", trigger: "new_issue", channelId, attempts: 0 });
    const m = JSON.parse(rows[0]?.payload ?? "") as IssueAlert;
    expect(m).toMatchObject({
      v: 1,
      trigger: "new_issue",
      project: { slug: "web" },
      issue: { shortId: expect.stringMatching(/^WEB-\d+$/), title: "AlertError: new-1", count: 1, level: "error" },
      event: {
        environment: "production",
        release: "1.0.0",
        topFrame: { function: "handle_new_1", filename: "src/handler.ts", lineno: 42 },
      },
      path: `/acme/issues/${await w.issueOf("new-1")}`,
    });
    await off(id);
  });

  test("regression fires on the event that regresses a resolved issue; a rule without it stays quiet", async () => {
    const reg = await rule({ triggers: { regression: true } });
    const newOnly = await rule({ triggers: { newIssue: true } });
    await w.sendEvents({ message: "reg-1" });
    const issue = await w.issueOf("reg-1");
    tick();
    await w.services.issueActions.update(w.member, "acme", issue, { status: "resolved" });
    tick();
    await w.sendEvents({ message: "reg-1" });
    expect((await of(reg)).map((n) => n.trigger)).toEqual(["regression"]);
    expect((await of(newOnly)).map((n) => n.trigger)).toEqual(["new_issue"]);
    await off(reg);
    await off(newOnly);
  });

  test("unignored fires when an ignore condition is met", async () => {
    await w.sendEvents({ message: "ign-1" });
    const issue = await w.issueOf("ign-1");
    const id = await rule({ triggers: { unignored: true } });
    await w.services.issueActions.update(w.member, "acme", issue, { status: "ignored", statusDetails: { ignoreCount: 2 } });
    tick();
    await w.sendEvents({ message: "ign-1" });
    expect(await of(id)).toHaveLength(0);
    await w.sendEvents({ message: "ign-1" });
    expect((await of(id)).map((n) => n.trigger)).toEqual(["unignored"]);
    await off(id);
  });

  test("frequency: “more than 3 events in 5 minutes” fires on the 4th event, not the 3rd; once per window", async () => {
    await w.sendEvents({ message: "freq-1" });
    const id = await rule({ triggers: { frequency: { events: 3, minutes: 5 } } });
    // the issue is younger than the window: its first event (before the rule) counts too
    await w.sendEvents({ message: "freq-1" }, { message: "freq-1" });
    expect(await of(id)).toHaveLength(0);
    await w.sendEvents({ message: "freq-1" });
    expect((await of(id)).map((n) => n.trigger)).toEqual(["frequency"]);
    expect(JSON.parse((await of(id))[0]?.payload ?? "")).toMatchObject({ issue: { count: 4 } });
    await w.sendEvents(...Array.from({ length: 100 }, () => ({ message: "freq-1" })));
    expect(await of(id)).toHaveLength(1);
    // a later window counts from its own first event: three are not more than three
    tick(6 * MINUTE);
    await w.sendEvents(...Array.from({ length: 3 }, () => ({ message: "freq-1" })));
    expect(await of(id)).toHaveLength(1);
    await w.sendEvents({ message: "freq-1" });
    expect(await of(id)).toHaveLength(2);
    await off(id);
  });

  test("frequency on distinct users: more than 2 users, so the 3rd distinct user fires", async () => {
    await w.sendEvents({ message: "freq-users" });
    const id = await rule({ triggers: { frequency: { users: 2, minutes: 60 } } });
    await w.sendEvents({ message: "freq-users", user: "a" }, { message: "freq-users", user: "a" }, { message: "freq-users", user: "b" });
    expect(await of(id)).toHaveLength(0);
    await w.sendEvents({ message: "freq-users", user: "c" });
    expect(await of(id)).toHaveLength(1);
    await off(id);
  });

  test("filters: environment, level, tag, in-app and the search language exclude what they should", async () => {
    const env = await rule({ triggers: { newIssue: true }, filters: { environments: ["production"] } });
    const level = await rule({ triggers: { newIssue: true }, filters: { levels: ["fatal"] } });
    const tag = await rule({ triggers: { newIssue: true }, filters: { tags: [{ key: "customer", op: "contains", value: "vip" }] } });
    const inApp = await rule({ triggers: { newIssue: true }, filters: { inAppOnly: true } });
    const query = await rule({ triggers: { newIssue: true }, filters: { query: "customer:vip-* !environment:staging" } });
    await w.sendEvents({ message: "flt-staging", environment: "staging", tags: { customer: "vip-1" } });
    await w.sendEvents({ message: "flt-prod", environment: "production", tags: { customer: "regular" }, inApp: false });
    await w.sendEvents({ message: "flt-vip", environment: "production", level: "fatal", tags: { customer: "vip-2" } });
    const titles = async (id: number) =>
      (await of(id)).map((n) => (JSON.parse(n.payload) as IssueAlert).issue.title.replace("AlertError: ", ""));
    expect(await titles(env)).toEqual(["flt-prod", "flt-vip"]);
    expect(await titles(level)).toEqual(["flt-vip"]);
    expect(await titles(tag)).toEqual(["flt-staging", "flt-vip"]);
    expect(await titles(inApp)).toEqual(["flt-staging", "flt-vip"]);
    expect(await titles(query)).toEqual(["flt-vip"]);
    for (const id of [env, level, tag, inApp, query]) await off(id);
    expect(
      await codeOf(
        w.services.alerts.createRule(w.admin, "acme", "web", { name: "bad", triggers: { newIssue: true }, filters: { query: "is:nope" } }),
      ),
    ).toBe("validation_failed");
  });

  test("throttle: at most one message per issue every T minutes", async () => {
    await w.sendEvents({ message: "thr-1" });
    const id = await rule({ triggers: { frequency: { events: 1, minutes: 1 } }, throttleMinutes: 30 });
    await w.sendEvents({ message: "thr-1" }, { message: "thr-1" });
    tick(2 * MINUTE);
    await w.sendEvents({ message: "thr-1" }, { message: "thr-1" });
    expect(await of(id)).toHaveLength(1);
    tick(30 * MINUTE);
    await w.sendEvents({ message: "thr-1" }, { message: "thr-1" });
    expect(await of(id)).toHaveLength(2);
    await off(id);
  });

  test("muted issues send nothing until unmuted; viewers cannot mute", async () => {
    await w.sendEvents({ message: "mute-1" });
    const issue = await w.issueOf("mute-1");
    const id = await rule({ triggers: { frequency: { events: 1, minutes: 1 } } });
    expect(await codeOf(w.services.alerts.muteIssue(w.viewer, "acme", issue, null))).toBe("forbidden");
    await w.services.alerts.muteIssue(w.member, "acme", issue, null);
    expect(await w.services.alerts.issueMute(w.viewer, "acme", issue)).toEqual({ muted: true, until: null });
    await w.sendEvents({ message: "mute-1" }, { message: "mute-1" });
    expect(await of(id)).toHaveLength(0);
    await w.services.alerts.unmuteIssue(w.member, "acme", issue);
    tick(2 * MINUTE);
    await w.sendEvents({ message: "mute-1" }, { message: "mute-1" });
    expect(await of(id)).toHaveLength(1);
    await off(id);
  });

  test("a timed mute (the issue page's 1 hour) answers its end and lapses by itself; the past is refused", async () => {
    await w.sendEvents({ message: "mute-2" });
    const issue = await w.issueOf("mute-2");
    const id = await rule({ triggers: { frequency: { events: 1, minutes: 1 } } });
    const until = w.clock.now + 60 * MINUTE;
    expect(await w.services.alerts.muteIssue(w.member, "acme", issue, until)).toEqual({ muted: true, until });
    expect(await w.services.alerts.issueMute(w.member, "acme", issue)).toEqual({ muted: true, until });
    tick(2 * MINUTE);
    await w.sendEvents({ message: "mute-2" }, { message: "mute-2" });
    expect(await of(id)).toHaveLength(0);
    tick(60 * MINUTE);
    expect(await w.services.alerts.issueMute(w.member, "acme", issue)).toEqual({ muted: false, until: null });
    await w.sendEvents({ message: "mute-2" }, { message: "mute-2" });
    expect(await of(id)).toHaveLength(1);
    expect(await codeOf(w.services.alerts.muteIssue(w.member, "acme", issue, w.clock.now - 1))).toBe("validation_failed");
    await off(id);
  });

  test("hourly cap: messages beyond it are held, then ONE digest message lists them", async () => {
    tick(2 * 60 * MINUTE);
    const id = await rule({ triggers: { newIssue: true }, hourlyCap: 2 });
    await w.sendEvents(...Array.from({ length: 5 }, (_, i) => ({ message: `cap-${i}` })));
    expect((await of(id)).map((n) => n.status)).toEqual(["pending", "pending", "held", "held", "held"]);
    // still capped: nothing summarised yet
    expect(await summariseHeld(w.db, w.clock.now)).toBe(0);
    tick(61 * MINUTE);
    expect(await summariseHeld(w.db, w.clock.now)).toBe(1);
    const rows = await of(id);
    expect(rows.map((n) => n.status)).toEqual(["pending", "pending", "summarised", "summarised", "summarised", "pending"]);
    const digest = JSON.parse(rows[5]?.payload ?? "");
    expect(digest).toMatchObject({ kind: "digest", heldCount: 3 });
    expect(digest.held.map((h: { title: string }) => h.title)).toEqual(["AlertError: cap-2", "AlertError: cap-3", "AlertError: cap-4"]);
    expect(await summariseHeld(w.db, w.clock.now)).toBe(0);
    await off(id);
  });

  test('Sentry\'s actionMatch "all" is stored, read back and applied: a regression alone does not fire, a regression within a burst does', async () => {
    const body = {
      name: "regressions that burst",
      actionMatch: "all",
      filterMatch: "all",
      frequency: 0,
      conditions: [
        { id: "sentry.rules.conditions.regression_event.RegressionEventCondition" },
        { id: "sentry.rules.conditions.event_frequency.EventFrequencyCondition", value: 2, interval: "1h" },
      ],
      filters: [],
      actions: [{ id: "errata.rules.actions.NotifyChannelAction", channelId }],
    };
    const all = (await w.services.alerts.createRule(w.admin, "acme", "web", fromSentryRule(body))).id;
    const any = (await w.services.alerts.createRule(w.admin, "acme", "web", fromSentryRule({ ...body, actionMatch: "any" }))).id;
    const read = (await w.services.alerts.overview(w.owner, "acme", "web")).rules.find((r) => r.id === all);
    expect(read && sentryRule(read).actionMatch).toBe("all");
    expect(await codeOf((async () => fromSentryRule({ ...body, actionMatch: "none" }))())).toBe("validation_failed");

    await w.sendEvents({ message: "all-1" });
    const issue = await w.issueOf("all-1");
    tick();
    await w.services.issueActions.update(w.member, "acme", issue, { status: "resolved" });
    tick();
    // The regression (2nd event): "any" fires, "all" waits for more than 2 events in the hour.
    await w.sendEvents({ message: "all-1" });
    expect((await of(any)).map((n) => n.trigger)).toEqual(["regression"]);
    expect(await of(all)).toEqual([]);
    tick();
    await w.services.issueActions.update(w.member, "acme", issue, { status: "resolved" });
    tick();
    // The 3rd event regresses again and crosses "more than 2 in 1h": both hold on this event.
    await w.sendEvents({ message: "all-1" });
    expect((await of(all)).map((n) => n.trigger)).toEqual(["regression"]);
    await off(all);
    await off(any);
  });
});
