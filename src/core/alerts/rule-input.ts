/**
 * What admins send for rules and channels (UI, REST, CLI), validated into the stored shapes.
 * Every failure is `validation_failed` naming the field; the filter query must parse with the
 * stream's own parser (one language).
 */
import { z } from "zod";
import { AppError } from "../errors";
import { parseIssueSearch } from "../search/parse-query";
import { validate } from "../validation";
import { OPSGENIE_URL, PAGERDUTY_URL } from "./incident-bodies";
import { CHANNEL_KINDS, type ChannelConfig, type ChannelKind, type RuleSettings } from "./types";

/** SPEC §9: at most 60 alert messages per hour per rule. */
export const DEFAULT_HOURLY_CAP = 60;
/** Per issue: at most one message every 30 minutes unless the admin says otherwise. */
export const DEFAULT_THROTTLE_MINUTES = 30;

const frequencySchema = z
  .object({
    events: z.number().int().min(0).max(1_000_000).default(0),
    users: z.number().int().min(0).max(1_000_000).default(0),
    minutes: z
      .number()
      .int()
      .min(1, "use at least 1 minute")
      .max(7 * 24 * 60),
  })
  .refine((f) => f.events > 0 || f.users > 0, { message: "set events or users above 0" });

/** The crash-free trigger's defaults: below 95 % once at least 50 sessions were counted. */
export const DEFAULT_CRASH_FREE = { belowPercent: 95, minSessions: 50 } as const;

const crashFreeSchema = z.object({
  belowPercent: z
    .number()
    .gt(0, "use a percentage above 0")
    .max(100, "use at most 100")
    .default(DEFAULT_CRASH_FREE.belowPercent)
    // kept to hundredths: the evaluator compares exactly in hundredths of a percent
    .transform((p) => Math.round(p * 100) / 100)
    .refine((p) => p > 0, "use a percentage of at least 0.01"),
  minSessions: z.number().int().min(1, "use at least 1 session").max(1_000_000_000).default(DEFAULT_CRASH_FREE.minSessions),
});

const ruleSchema = z.object({
  name: z.string().trim().min(1, "required").max(100, "use at most 100 characters"),
  enabled: z.boolean().default(true),
  triggers: z
    .object({
      newIssue: z.boolean().default(false),
      regression: z.boolean().default(false),
      unignored: z.boolean().default(false),
      frequency: frequencySchema.nullable().default(null),
      crashFree: crashFreeSchema.nullable().default(null),
      match: z.enum(["any", "all"], "any or all").default("any"),
    })
    .refine((t) => t.newIssue || t.regression || t.unignored || t.frequency !== null || t.crashFree !== null, {
      message: "choose at least one trigger",
    })
    .refine((t) => t.match !== "all" || t.newIssue || t.regression || t.unignored || t.frequency !== null, {
      message: '"all" needs at least one issue trigger (crash-free is a release trigger and is evaluated on its own)',
      path: ["match"],
    }),
  filters: z
    .object({
      environments: z.array(z.string().trim().min(1).max(200)).max(50).default([]),
      levels: z
        .array(z.enum(["fatal", "error", "warning", "info", "debug"]))
        .max(5)
        .default([]),
      tags: z
        .array(
          z.object({
            key: z.string().trim().min(1, "every tag filter needs a key").max(200),
            op: z.enum(["equals", "contains"]),
            value: z.string().max(200),
          }),
        )
        .max(20)
        .default([]),
      maxIssueAgeMinutes: z
        .number()
        .int()
        .min(1)
        .max(365 * 24 * 60)
        .nullable()
        .default(null),
      inAppOnly: z.boolean().default(false),
      query: z.string().trim().max(1000).default(""),
    })
    .prefault({}),
  channelIds: z.array(z.number().int().positive()).max(20).default([]),
  targets: z
    .array(
      z.object({
        type: z.enum(["issue_owners", "suspect_commits"], "issue_owners or suspect_commits"),
        fallthrough: z.enum(["all_members", "active_members", "no_one"], "all_members, active_members or no_one").default("active_members"),
      }),
    )
    .max(2)
    .refine((t) => new Set(t.map((x) => x.type)).size === t.length, "each target once")
    .default([]),
  throttleMinutes: z
    .number()
    .int()
    .min(0)
    .max(7 * 24 * 60)
    .default(DEFAULT_THROTTLE_MINUTES),
  hourlyCap: z.number().int().min(0).max(10_000).default(DEFAULT_HOURLY_CAP),
});

export type RuleInput = z.input<typeof ruleSchema>;

/** Validates a rule; `now` only compiles relative times in the query to check it parses. */
export function parseRuleInput(input: unknown, now: number): RuleSettings {
  const rule = validate(ruleSchema, input) as RuleSettings;
  if (rule.filters.query !== "") {
    try {
      parseIssueSearch(rule.filters.query, now);
    } catch (err) {
      const message = err instanceof Error ? err.message : "invalid query";
      throw new AppError("validation_failed", undefined, { fields: [{ field: "filters.query", rule: "invalid_query", message }] });
    }
  }
  return rule;
}

const httpUrl = z
  .string()
  .trim()
  .max(2000)
  .refine((u) => /^https?:\/\//i.test(u) && URL.canParse(u), "use an http(s) URL");

const channelSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("email"),
    name: z.string().trim().min(1).max(100),
    config: z
      .object({
        to: z
          .array(z.string().trim().pipe(z.email("enter a valid email address")))
          .max(50)
          .default([]),
      })
      .prefault({}),
  }),
  z.object({
    kind: z.literal("webhook"),
    name: z.string().trim().min(1).max(100),
    config: z.object({ url: httpUrl, secret: z.string().min(8, "use at least 8 characters").max(200).optional() }),
  }),
  z.object({
    kind: z.literal("telegram"),
    name: z.string().trim().min(1).max(100),
    config: z.object({
      botToken: z
        .string()
        .trim()
        .regex(/^\d+:[\w-]+$/, "a bot token looks like 123456:ABC-def"),
      chatId: z.string().trim().min(1).max(100),
      url: httpUrl.optional(),
    }),
  }),
  z.object({
    kind: z.literal("ntfy"),
    name: z.string().trim().min(1).max(100),
    config: z.object({ url: httpUrl, token: z.string().max(200).optional() }),
  }),
  z.object({
    kind: z.literal("pagerduty"),
    name: z.string().trim().min(1).max(100),
    config: z.object({
      routingKey: z
        .string()
        .trim()
        .regex(/^[A-Za-z0-9]{20,64}$/, "an integration key is 32 letters and digits"),
      url: httpUrl.default(PAGERDUTY_URL),
    }),
  }),
  z.object({
    kind: z.literal("opsgenie"),
    name: z.string().trim().min(1).max(100),
    config: z.object({
      apiKey: z
        .string()
        .trim()
        .regex(/^[A-Za-z0-9-]{8,128}$/, "an API key looks like 0f1e2d3c-…"),
      url: httpUrl.default(OPSGENIE_URL),
    }),
  }),
  ...(["slack", "discord", "teams", "mattermost", "googlechat"] as const).map((kind) =>
    z.object({ kind: z.literal(kind), name: z.string().trim().min(1).max(100), config: z.object({ url: httpUrl }) }),
  ),
]);

export function parseChannelInput(input: unknown): { name: string; kind: ChannelKind; config: ChannelConfig } {
  return validate(channelSchema, input) as { name: string; kind: ChannelKind; config: ChannelConfig };
}

export function isChannelKind(s: string): s is ChannelKind {
  return (CHANNEL_KINDS as readonly string[]).includes(s);
}

/** The rule every new project starts with: new issues and regressions → email to its members (when mail is set up). */
export function defaultRule(emailChannelId: number | undefined): RuleSettings {
  return {
    name: "New issues and regressions",
    enabled: true,
    triggers: { newIssue: true, regression: true, unignored: false, frequency: null, crashFree: null },
    filters: { environments: [], levels: [], tags: [], maxIssueAgeMinutes: null, inAppOnly: false, query: "" },
    channelIds: emailChannelId === undefined ? [] : [emailChannelId],
    targets: [],
    throttleMinutes: DEFAULT_THROTTLE_MINUTES,
    hourlyCap: DEFAULT_HOURLY_CAP,
  };
}
