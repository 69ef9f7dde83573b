/**
 * `errata alert create|list|delete`: provisioning alert rules without the UI (operator trust, like
 * the other subcommands: whoever runs the CLI has the database). Input goes through the same
 * validation as the UI and the REST API (src/core/alerts/rule-input.ts).
 */
import type { Command } from "commander";
import { loadConfig } from "../config";
import { parseChannelInput, parseRuleInput } from "../core/alerts/rule-input";
import type { ChannelKind, RuleSettings } from "../core/alerts/types";
import { AppError } from "../core/errors";
import { deleteRule, insertChannel, insertRule, listChannels, listRules } from "../storage/alerts/rules";
import { type Db, openDb } from "../storage/db";
import { writeTx } from "../storage/dialect";
import { migrateToLatest } from "../storage/migrate";
import { findOrgBySlug } from "../storage/orgs/orgs";
import { findProjectBySlug } from "../storage/orgs/projects";

const TRIGGERS = ["new-issue", "regression", "unignored", "frequency", "crash-free"] as const;

async function withProject<T>(org: string, project: string, fn: (db: Db, projectId: number) => Promise<T>): Promise<T> {
  const db = openDb(loadConfig().database);
  try {
    await migrateToLatest(db);
    const o = await findOrgBySlug(db, org);
    const p = o ? await findProjectBySlug(db, o.id, project) : undefined;
    if (!p) throw new AppError("not_found", `No project "${project}" in organization "${org}".`);
    return await fn(db, p.id);
  } finally {
    await db.close();
  }
}

interface CreateOptions {
  org: string;
  project: string;
  trigger: string[];
  name?: string;
  filter?: string;
  environment?: string[];
  events?: string;
  users?: string;
  minutes?: string;
  below?: string;
  minSessions?: string;
  webhook?: string;
  kind: string;
  secret?: string;
  email?: string[];
  throttle?: string;
}

function ruleInput(o: CreateOptions, channelId: number): unknown {
  const bad = o.trigger.find((t) => !(TRIGGERS as readonly string[]).includes(t));
  if (bad) throw new AppError("validation_failed", `Unknown trigger "${bad}": use ${TRIGGERS.join(", ")}.`);
  const num = (s: string | undefined) => (s === undefined ? undefined : Number(s));
  const frequency = o.trigger.includes("frequency")
    ? { events: num(o.events) ?? 0, users: num(o.users) ?? 0, minutes: num(o.minutes) ?? 60 }
    : null;
  // Defaults (95 %, 50 sessions) come from rule-input.ts when an option is left out.
  const crashFree = o.trigger.includes("crash-free")
    ? {
        ...(o.below !== undefined ? { belowPercent: num(o.below) } : {}),
        ...(o.minSessions !== undefined ? { minSessions: num(o.minSessions) } : {}),
      }
    : null;
  return {
    name: o.name ?? `${o.trigger.join(", ")} → ${o.webhook ? o.kind : "email"}`,
    triggers: {
      newIssue: o.trigger.includes("new-issue"),
      regression: o.trigger.includes("regression"),
      unignored: o.trigger.includes("unignored"),
      frequency,
      crashFree,
    },
    filters: { query: o.filter ?? "", environments: o.environment ?? [] },
    channelIds: [channelId],
    ...(o.throttle !== undefined ? { throttleMinutes: Number(o.throttle) } : {}),
  };
}

const collect = (v: string, prev: string[] = []) => [
  ...prev,
  ...v
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean),
];

export function registerAlertCommands(cli: Command): void {
  const alert = cli.command("alert").description("manage alert rules and their channels");
  alert
    .command("create")
    .description("create an alert rule sending to a new webhook or email channel; prints the rule id")
    .requiredOption("--org <slug>")
    .requiredOption("--project <slug>")
    .requiredOption("--trigger <trigger>", `${TRIGGERS.join("|")} (repeatable)`, collect)
    .option("--name <name>")
    .option("--filter <query>", "the issue stream's search language, e.g. 'level:error environment:production'")
    .option("--environment <env>", "only these environments (repeatable)", collect)
    .option("--events <n>", "frequency: more than N events…")
    .option("--users <n>", "frequency: …or N distinct users…")
    .option("--minutes <m>", "frequency: …within M minutes", "60")
    .option("--below <percent>", "crash-free: a release's crash-free sessions drop below this percentage (default 95)")
    .option("--min-sessions <n>", "crash-free: …once at least N sessions were counted for it (default 50)")
    .option("--throttle <minutes>", "at most one message per issue (or release) every this many minutes")
    .option("--webhook <url>", "send to this URL")
    .option("--kind <kind>", "generic|slack|discord|teams|mattermost|googlechat|ntfy", "generic")
    .option("--secret <secret>", "generic webhook: HMAC-SHA256 signing key")
    .option("--email <addresses>", "send email to these addresses (repeatable, comma-separated)", collect)
    .action(async (o: CreateOptions) => {
      if (!o.webhook && !o.email) throw new AppError("validation_failed", "Give --webhook URL or --email ADDRESS.");
      const kind = (o.kind === "generic" ? "webhook" : o.kind) as ChannelKind;
      const channel = o.webhook
        ? parseChannelInput({
            kind,
            name: `${o.kind} ${new URL(o.webhook).host}`,
            config: { url: o.webhook, ...(o.secret ? { secret: o.secret } : {}) },
          })
        : parseChannelInput({ kind: "email", name: "email", config: { to: o.email } });
      const rule = await withProject(o.org, o.project, (db, projectId) =>
        writeTx(db, async (tx) => {
          const c = await insertChannel(tx, projectId, channel, Date.now());
          const settings: RuleSettings = parseRuleInput(ruleInput(o, c.id), Date.now());
          return insertRule(tx, projectId, settings, Date.now());
        }),
      );
      process.stdout.write(`${rule.id}\n`);
    });
  alert
    .command("list")
    .description("list a project's alert rules")
    .requiredOption("--org <slug>")
    .requiredOption("--project <slug>")
    .action(async (o: { org: string; project: string }) => {
      const lines = await withProject(o.org, o.project, async (db, projectId) => {
        const channels = new Map((await listChannels(db, projectId)).map((c) => [c.id, c]));
        return (await listRules(db, projectId)).map((r) => {
          const t = r.triggers;
          const triggers = [
            t.newIssue && "new-issue",
            t.regression && "regression",
            t.unignored && "unignored",
            t.frequency &&
              `frequency(>${t.frequency.events || t.frequency.users} ${t.frequency.events ? "events" : "users"}/${t.frequency.minutes}m)`,
            t.crashFree && `crash-free(<${t.crashFree.belowPercent}%/${t.crashFree.minSessions} sessions)`,
          ].filter(Boolean);
          const to = r.channelIds.map((id) => channels.get(id)?.kind ?? `#${id}`).join(",");
          return `${r.id}\t${r.enabled ? "on" : "off"}\t${triggers.join(",")}\t${to}\t${r.filters.query}\t${r.name}`;
        });
      });
      process.stdout.write(lines.length ? `${lines.join("\n")}\n` : "");
    });
  alert
    .command("delete")
    .description("delete an alert rule")
    .requiredOption("--org <slug>")
    .requiredOption("--project <slug>")
    .requiredOption("--id <id>")
    .action(async (o: { org: string; project: string; id: string }) => {
      const gone = await withProject(o.org, o.project, (db, projectId) => writeTx(db, (tx) => deleteRule(tx, projectId, Number(o.id))));
      if (!gone) throw new AppError("not_found", `No alert rule ${o.id} in this project.`);
      process.stdout.write(`deleted ${o.id}\n`);
    });
}
