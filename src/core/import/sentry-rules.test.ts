import { describe, expect, test } from "vitest";
import {
  channelKey,
  type EmailDirectory,
  legacyOwnersFallthrough,
  sentryRuleSchema,
  translateSentryRule,
  webhookPluginUrls,
} from "./sentry-rules";

const dir: EmailDirectory = {
  person: new Map([["7", "ada@x.test"]]),
  team: new Map([["32", { slug: "backend", emails: ["bob@x.test", "carol@x.test"] }]]),
};
const rule = (r: Record<string, unknown>) => sentryRuleSchema.parse({ id: "1", name: "R", ...r });
const C = "sentry.rules.conditions.";
const F = "sentry.rules.filters.";

describe("Sentry alert rules as Errata's", () => {
  test("triggers, filters (level ≥ error expands), environment, throttle and email targets", () => {
    const t = translateSentryRule(
      rule({
        actionMatch: "any",
        filterMatch: "all",
        frequency: 60,
        environment: "production",
        conditions: [
          { id: `${C}first_seen_event.FirstSeenEventCondition` },
          { id: `${C}event_frequency.EventFrequencyCondition`, value: 100, interval: "1h", comparisonType: "count" },
          { id: `${C}event_frequency.EventUniqueUserFrequencyCondition`, value: 5, interval: "1h" },
        ],
        filters: [
          { id: `${F}tagged_event.TaggedEventFilter`, key: "device", match: "eq", value: "iPhone" },
          { id: `${F}level.LevelFilter`, match: "gte", level: "40" },
          { id: `${F}age_comparison.AgeComparisonFilter`, comparison_type: "newer", value: 2, time: "day" },
        ],
        actions: [
          { id: "sentry.mail.actions.NotifyEmailAction", targetType: "Member", targetIdentifier: 7 },
          { id: "sentry.mail.actions.NotifyEmailAction", targetType: "Team", targetIdentifier: "32" },
          { id: "sentry.integrations.slack.notify_action.SlackNotifyServiceAction", channel: "#alerts" },
        ],
      }),
      dir,
      null,
    );
    expect(t.ok).toBe(true);
    if (!t.ok) return;
    expect(t.settings.triggers).toEqual({
      newIssue: true,
      regression: false,
      unignored: false,
      frequency: { events: 100, users: 5, minutes: 60 },
      crashFree: null,
      match: "any",
    });
    expect(t.settings.filters).toMatchObject({
      environments: ["production"],
      levels: ["error", "fatal"],
      tags: [{ key: "device", op: "equals", value: "iPhone" }],
      maxIssueAgeMinutes: 2880,
    });
    expect(t.settings.throttleMinutes).toBe(60);
    expect(t.channels.map((c) => c.config)).toEqual([{ to: ["ada@x.test"] }, { to: ["bob@x.test", "carol@x.test"] }]);
    expect(t.notes.join(" ")).toMatch(/SlackNotifyServiceAction not moved: .*incoming-webhook/);
  });

  test("what has no counterpart is refused with every reason", () => {
    const t = translateSentryRule(
      rule({
        actionMatch: "all",
        filterMatch: "any",
        conditions: [
          { id: `${C}first_seen_event.FirstSeenEventCondition` },
          { id: `${C}regression_event.RegressionEventCondition` },
          { id: `${C}high_priority_issue.NewHighPriorityIssueCondition` },
          { id: `${C}event_frequency.EventFrequencyCondition`, value: 10, interval: "1h", comparisonType: "percent" },
        ],
        filters: [
          { id: `${F}latest_release.LatestReleaseFilter` },
          { id: `${F}tagged_event.TaggedEventFilter`, key: "a", match: "sw", value: "x" },
        ],
      }),
      dir,
      null,
    );
    expect(t.ok).toBe(false);
    if (t.ok) return;
    expect(t.reasons.join("\n")).toMatch(/no issue priority/);
    expect(t.reasons.join("\n")).toMatch(/earlier period/);
    expect(t.reasons.join("\n")).toMatch(/any one of its filters/);
    expect(t.reasons.join("\n")).toMatch(/latest release/);
    expect(t.reasons.join("\n")).toMatch(/“equals” and “contains”/);
  });

  test("legacy tag conditions of an 'all' rule are filters; the webhooks plugin's URLs become webhook channels", () => {
    const t = translateSentryRule(
      rule({
        actionMatch: "all",
        conditions: [
          { id: `${C}regression_event.RegressionEventCondition` },
          { id: `${C}tagged_event.TaggedEventCondition`, key: "env", match: "co", value: "prod" },
        ],
        actions: [{ id: "sentry.rules.actions.notify_event_service.NotifyEventServiceAction", service: "webhooks" }],
        frequency: 43200,
        status: "disabled",
      }),
      dir,
      webhookPluginUrls({ enabled: true, config: [{ name: "urls", value: "https://a.test/h\nnot a url\nhttps://b.test/h" }] }),
    );
    expect(t.ok).toBe(true);
    if (!t.ok) return;
    expect(t.settings.enabled).toBe(false);
    expect(t.settings.triggers.match).toBe("all");
    expect(t.settings.filters.tags).toEqual([{ key: "env", op: "contains", value: "prod" }]);
    expect(t.channels.map((c) => [c.kind, c.config.url])).toEqual([
      ["webhook", "https://a.test/h"],
      ["webhook", "https://b.test/h"],
    ]);
    expect(t.settings.throttleMinutes).toBe(10080);
  });

  test("a channel's identity ignores key and recipient order", () => {
    expect(channelKey("email", { to: ["b", "a"] })).toBe(channelKey("email", { to: ["a", "b"] }));
    expect(channelKey("webhook", { url: "u", secret: undefined })).toBe(channelKey("webhook", { url: "u" }));
  });

  test("issue-owner mail without a fallthroughType takes the project's ownership switch, as Sentry's migration 0349 did", () => {
    const owners = (fallthroughType?: string) =>
      rule({
        conditions: [{ id: `${C}first_seen_event.FirstSeenEventCondition` }],
        actions: [
          {
            id: "sentry.mail.actions.NotifyEmailAction",
            targetType: "IssueOwners",
            targetIdentifier: "",
            ...(fallthroughType ? { fallthroughType } : {}),
          },
        ],
      });
    const iso = "2022-06-01T10:00:00.000000Z";
    // the switch as Sentry serves it: on, off, and the defaults of a project without settings (dateCreated null)
    expect(legacyOwnersFallthrough({ fallthrough: true, dateCreated: iso })).toBe("all_members");
    expect(legacyOwnersFallthrough({ fallthrough: false, dateCreated: iso })).toBe("no_one");
    expect(legacyOwnersFallthrough({ fallthrough: true, dateCreated: null })).toBe("active_members");
    expect(legacyOwnersFallthrough(null)).toBe("active_members");

    const legacy = translateSentryRule(owners(), dir, null, legacyOwnersFallthrough({ fallthrough: false, dateCreated: iso }));
    expect(legacy.ok && legacy.settings.targets).toEqual([{ type: "issue_owners", fallthrough: "no_one" }]);
    expect(legacy.ok && legacy.notes.join(" ")).toMatch(/names no fallthrough: the project's ownership setting gives it \(no one\)/);
    // an action that names its fallthrough keeps it, whatever the project's switch says
    const stated = translateSentryRule(owners("AllMembers"), dir, null, "no_one");
    expect(stated.ok && stated.settings.targets).toEqual([{ type: "issue_owners", fallthrough: "all_members" }]);
    expect(stated.ok && stated.notes).toEqual([]);
  });
});
