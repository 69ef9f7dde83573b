/**
 * Alert rules apply to monitor issues like any other (issue 12), through the real queue and digest
 * on both databases: a failing cron check-in opens the monitor's issue and a new-issue rule queues
 * one message for it; recovery resolves it, and the next failure is a regression that a
 * regression rule hears; an environment filter keeps other environments quiet.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { IssueAlert } from "../../src/core/alerts/message";
import { enqueueMany } from "../../src/storage/queue/queue";
import { dialects } from "../helpers/test-db";
import { drain, hexId } from "../pipeline/helpers";
import { type AlertWorld, createAlertWorld } from "./helpers";

const config = { schedule: { type: "crontab", value: "0 * * * *" }, checkin_margin: 5, max_runtime: 10, timezone: "UTC" };

describe.each(await dialects())("alerts on monitor issues on %s", (dialect) => {
  let w: AlertWorld;
  let channelId: number;
  beforeAll(async () => {
    w = await createAlertWorld(dialect);
    channelId = (
      await w.services.alerts.createChannel(w.admin, "acme", "web", {
        kind: "webhook",
        name: "hook",
        config: { url: "https://hooks.example/m" },
      })
    ).id;
    // The project's default rule is switched off so only this test's rules count.
    const def = (await w.services.alerts.overview(w.owner, "acme", "web")).rules[0];
    await w.services.alerts.updateRule(w.admin, "acme", "web", def?.id ?? 0, { name: "off", enabled: false, triggers: { newIssue: true } });
  });
  afterAll(async () => w?.close());

  async function checkIn(status: "ok" | "error", environment = "production") {
    w.clock.now += 60_000;
    const body = {
      check_in_id: hexId(`mon:${w.clock.now}:${status}`),
      monitor_slug: "nightly-export",
      status,
      environment,
      monitor_config: config,
    };
    await enqueueMany(w.db, [
      {
        projectId: w.projectId,
        keyId: 1,
        receivedAt: w.clock.now,
        clientIp: null,
        kind: "envelope" as const,
        body: Buffer.from(`{}\n{"type":"check_in"}\n${JSON.stringify(body)}\n`),
      },
    ]);
    const r = await drain(w.db, w.clock.now + 1000);
    if (r.failed > 0) throw new Error("digest failed");
  }

  test("a failed check-in is a new issue to the rules; after recovery the next failure is a regression; filters still apply", async () => {
    const rule = async (name: string, input: Record<string, unknown>) =>
      (await w.services.alerts.createRule(w.admin, "acme", "web", { name, channelIds: [channelId], throttleMinutes: 0, ...input })).id;
    const newIssue = await rule("new", { triggers: { newIssue: true } });
    const regression = await rule("regression", { triggers: { regression: true } });
    const stagingOnly = await rule("staging only", {
      triggers: { newIssue: true, regression: true },
      filters: { environments: ["staging"] },
    });
    const of = async (id: number) => (await w.outbox()).filter((n) => n.ruleId === id);

    await checkIn("ok");
    expect(await w.outbox()).toHaveLength(0);
    await checkIn("error");
    const [first] = await of(newIssue);
    expect(first).toMatchObject({ trigger: "new_issue", kind: "alert" });
    const message = JSON.parse(first?.payload ?? "") as IssueAlert;
    expect(message.issue.title).toMatch(/nightly-export/);
    expect(message.event.environment).toBe("production");

    await checkIn("ok"); // recovery resolves the issue: nothing to tell
    await checkIn("error");
    expect((await of(regression)).map((n) => n.trigger)).toEqual(["regression"]);
    expect((await of(newIssue)).map((n) => n.trigger)).toEqual(["new_issue"]);
    expect(await of(stagingOnly)).toHaveLength(0);
    expect(new Set((await w.outbox()).map((n) => n.issueId))).toEqual(new Set([first?.issueId]));
  });
});
