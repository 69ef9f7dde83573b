import { describe, expect, test } from "vitest";
import { parseRuleInput } from "../../../core/alerts/rule-input";
import { fromSentryRule, sentryRule } from "./alert-rule";

describe("Sentry issue alert rule shape", () => {
  test("round trip: Sentry body → Errata rule → Sentry body", () => {
    const body = {
      name: "Frequent errors",
      frequency: 15,
      environment: "production",
      conditions: [
        { id: "sentry.rules.conditions.first_seen_event.FirstSeenEventCondition" },
        { id: "sentry.rules.conditions.event_frequency.EventFrequencyCondition", value: 100, interval: "1h" },
      ],
      filters: [
        { id: "sentry.rules.filters.tagged_event.TaggedEventFilter", key: "browser", match: "co", value: "Chrome" },
        { id: "sentry.rules.filters.level.LevelFilter", match: "eq", level: "50" },
      ],
      actions: [{ id: "errata.rules.actions.NotifyChannelAction", channelId: 7 }],
    };
    const settings = parseRuleInput(fromSentryRule(body), 0);
    expect(settings).toMatchObject({
      throttleMinutes: 15,
      triggers: { newIssue: true, frequency: { events: 100, users: 0, minutes: 60 } },
      filters: { environments: ["production"], levels: ["fatal"], tags: [{ key: "browser", op: "contains", value: "Chrome" }] },
      channelIds: [7],
    });
    const back = sentryRule({ ...settings, id: 1, projectId: 1, createdAt: 0, updatedAt: 0 });
    expect(back.conditions).toEqual(body.conditions);
    expect(back.filters).toEqual([body.filters[0], { ...body.filters[1] }]);
    expect(back).toMatchObject({ id: "1", environment: "production", frequency: 15, status: "active", actions: body.actions });
  });

  test("Errata's own filters survive a GET → PUT round trip (the UI sets them)", () => {
    const settings = parseRuleInput(
      { name: "R", triggers: { newIssue: true }, filters: { inAppOnly: true, query: "level:error" }, hourlyCap: 5 },
      0,
    );
    const body = sentryRule({ ...settings, id: 1, projectId: 1, createdAt: 0, updatedAt: 0 });
    expect(parseRuleInput(fromSentryRule(JSON.parse(JSON.stringify(body))), 0)).toEqual(settings);
  });

  test("several environments survive a GET → PUT round trip; a Sentry client changing `environment` sets that one", () => {
    const settings = parseRuleInput({ name: "E", triggers: { newIssue: true }, filters: { environments: ["production", "staging"] } }, 0);
    const body = sentryRule({ ...settings, id: 3, projectId: 1, createdAt: 0, updatedAt: 0 });
    expect(body).toMatchObject({ environment: "production", environments: ["production", "staging"] });
    expect(parseRuleInput(fromSentryRule(JSON.parse(JSON.stringify(body))), 0).filters.environments).toEqual(["production", "staging"]);
    expect(parseRuleInput(fromSentryRule({ ...body, environment: "canary" }), 0).filters.environments).toEqual(["canary"]);
    expect(parseRuleInput(fromSentryRule({ ...body, environment: null, environments: undefined }), 0).filters.environments).toEqual([]);
  });

  test("the crash-free trigger (Errata's own, no Sentry condition) survives a GET → PUT round trip", () => {
    const settings = parseRuleInput(
      {
        name: "Release health",
        triggers: { crashFree: { belowPercent: 99.5, minSessions: 200 } },
        filters: { environments: ["production"] },
      },
      0,
    );
    const body = sentryRule({ ...settings, id: 2, projectId: 1, createdAt: 0, updatedAt: 0 });
    expect(body).toMatchObject({ conditions: [], environment: "production", crashFree: { belowPercent: 99.5, minSessions: 200 } });
    expect(parseRuleInput(fromSentryRule(JSON.parse(JSON.stringify(body))), 0)).toEqual(settings);
    // a body without it (a Sentry client) leaves it off; a bad one is refused by name
    const firstSeen = [{ id: "sentry.rules.conditions.first_seen_event.FirstSeenEventCondition" }];
    expect(parseRuleInput(fromSentryRule({ ...body, crashFree: undefined, conditions: firstSeen }), 0).triggers.crashFree).toBeNull();
    expect(() => parseRuleInput(fromSentryRule({ ...body, crashFree: { belowPercent: 0 } }), 0)).toThrow(/crashFree\.belowPercent/);
  });

  test("unknown conditions and actions are refused by name", () => {
    expect(() => fromSentryRule({ name: "x", conditions: [{ id: "sentry.rules.conditions.nope" }] })).toThrow(/validation|invalid/i);
    const fieldOf = (actions: unknown[]) => {
      try {
        fromSentryRule({ name: "x", conditions: [], actions });
      } catch (e) {
        return (e as { fields: Array<{ field: string }> }).fields[0]?.field;
      }
    };
    expect(fieldOf([{ id: "sentry.integrations.slack.notify_action.SlackNotifyServiceAction" }])).toBe("actions.0.id");
    // Sentry's email action is understood for issue owners only (Team and Member targets are not Errata's)
    expect(fieldOf([{ id: "sentry.mail.actions.NotifyEmailAction", targetType: "Member", targetIdentifier: 1 }])).toBe(
      "actions.0.targetType",
    );
  });
});
