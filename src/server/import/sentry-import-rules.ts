/**
 * Alert rules of an import from Sentry (issue 32): read per project with the webhooks plugin's
 * URLs, translated by `core/import/sentry-rules`, written one rule per transaction. A rule is found
 * again through `import_links` (Sentry's rule names are not unique), its channels by kind and
 * settings among the project's channels — a second run updates, never duplicates.
 */
import { parseChannelInput, parseRuleInput } from "../../core/alerts/rule-input";
import type { Fallthrough, RuleSettings } from "../../core/alerts/types";
import { AppError } from "../../core/errors";
import { type ImportReport, importedSlug, type SentryMember, type SentryTeam } from "../../core/import/sentry";
import {
  type ChannelSpec,
  channelKey,
  type EmailDirectory,
  type SentryRule,
  sentryPluginSchema,
  sentryRuleSchema,
  translateSentryRule,
  webhookPluginUrls,
} from "../../core/import/sentry-rules";
import { deleteRule, findRule, insertChannel, insertRule, listChannels, listRules, updateRule } from "../../storage/alerts/rules";
import type { Tx } from "../../storage/dialect";
import { findImportLink, putImportLink } from "../../storage/import/sentry-import";
import type { SentryClient } from "./sentry-client";

export interface SourceRules {
  /** null: the token may not read them, or the source has no rules endpoint */
  rules: SentryRule[] | null;
  /** the webhooks plugin's URLs; null: not readable */
  webhookUrls: string[] | null;
}

/** A project's rules and, when one of them uses it, the webhooks plugin's URLs. */
export async function readProjectRules(client: SentryClient, org: string, project: string): Promise<SourceRules> {
  const base = `/api/0/projects/${encodeURIComponent(org)}/${encodeURIComponent(project)}`;
  const rules = await client.list(`${base}/rules/`, sentryRuleSchema).catch(optional);
  const usesPlugin = (rules ?? []).some((r) => (r.actions ?? []).some((a) => String(a.id).includes("notify_event")));
  if (!usesPlugin) return { rules, webhookUrls: null };
  const plugin = await client.get(`${base}/plugins/webhooks/`, sentryPluginSchema).catch(optional);
  return { rules, webhookUrls: plugin ? webhookPluginUrls(plugin) : null };
}

/** Rules, plugins and the like are extras: a source without them (or a token without the scope) still imports the rest. */
function optional(err: unknown): null {
  if (err instanceof AppError && (err.code === "import_source_not_found" || err.code === "import_source_unauthorized")) return null;
  throw err;
}

/** Who the source's email actions can name: members by user and member id, teams by id and slug. */
export function emailDirectory(members: SentryMember[] | null, teams: SentryTeam[]): EmailDirectory {
  const person = new Map<string, string>();
  const team = new Map<string, { slug: string; emails: string[] }>();
  for (const m of members ?? []) {
    const email = (m.email ?? m.user?.email ?? "").trim().toLowerCase();
    if (!email) continue;
    if (m.user?.id) person.set(String(m.user.id), email);
    if (m.id) person.set(String(m.id), email);
    for (const slug of new Set([...(m.teams ?? []), ...(m.teamRoles ?? []).map((t) => t.teamSlug)])) {
      const t = teams.find((x) => x.slug === slug);
      for (const key of [slug, ...(t ? [t.id] : [])]) {
        const emails = [...new Set([...(team.get(key)?.emails ?? []), email])].sort();
        team.set(key, { slug: importedSlug(slug), emails });
      }
    }
  }
  return { person, team };
}

/** Drops the rule a new project starts with, when the source's own rules replace it. */
export async function dropDefaultRules(tx: Tx, projectId: number): Promise<void> {
  for (const r of await listRules(tx, projectId)) await deleteRule(tx, projectId, r.id);
}

/** Keys sorted at every depth: two settings objects compare equal whatever order they were built in. */
function stable(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stable).join(",")}]`;
  if (v && typeof v === "object") {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stable((v as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v ?? null);
}

/** Only what a rule is (not its id or times), channels in any order. */
const settingsOf = (r: RuleSettings) => ({
  name: r.name,
  enabled: r.enabled,
  triggers: r.triggers,
  filters: r.filters,
  channelIds: [...r.channelIds].sort((x, y) => x - y),
  throttleMinutes: r.throttleMinutes,
  hourlyCap: r.hourlyCap,
});
const sameSettings = (a: RuleSettings, b: RuleSettings) => stable(settingsOf(a)) === stable(settingsOf(b));

/** The project's channel with these settings, made when missing. */
async function channelFor(tx: Tx, projectId: number, spec: ChannelSpec, now: number): Promise<{ id: number; created: boolean }> {
  const wanted = channelKey(spec.kind, spec.config);
  const found = (await listChannels(tx, projectId)).find((c) => channelKey(c.kind, c.config) === wanted);
  if (found) return { id: found.id, created: false };
  const input = parseChannelInput(spec);
  return { id: (await insertChannel(tx, projectId, input, now)).id, created: true };
}

/** One source rule into one project (one transaction): created, updated, unchanged or skipped with why. */
export async function applyRule(
  tx: Tx,
  at: { orgId: number; projectId: number; projectSlug: string; now: number },
  rule: SentryRule,
  source: SourceRules,
  dir: EmailDirectory,
  report: ImportReport,
  ownersFallthrough: Fallthrough = "active_members",
): Promise<void> {
  const name = `${at.projectSlug}/${(rule.name ?? rule.id).slice(0, 80)}`;
  const t = translateSentryRule(rule, dir, source.webhookUrls, ownersFallthrough);
  if (!t.ok) {
    report.entries.push({ kind: "alert_rule", name, action: "skipped", note: t.reasons.join("; ") });
    return;
  }
  let settings: RuleSettings;
  const notes = [...t.notes];
  try {
    const channelIds: number[] = [];
    for (const spec of t.channels) {
      const c = await channelFor(tx, at.projectId, spec, at.now);
      channelIds.push(c.id);
      if (c.created) notes.push(`channel “${spec.name}” added`);
    }
    settings = parseRuleInput({ ...t.settings, channelIds }, at.now);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    const why = err.fields?.map((f) => `${f.field}: ${f.message}`).join("; ") || err.message;
    report.entries.push({ kind: "alert_rule", name, action: "skipped", note: `not valid here (${why})` });
    return;
  }
  const sourceKey = `${at.projectSlug}/${rule.id}`;
  const linked = await findImportLink(tx, at.orgId, "alert_rule", sourceKey);
  const existing = linked === undefined ? undefined : await findRule(tx, at.projectId, linked);
  const note = notes.length > 0 ? { note: notes.join("; ") } : {};
  if (!existing) {
    const made = await insertRule(tx, at.projectId, settings, at.now);
    await putImportLink(tx, { orgId: at.orgId, kind: "alert_rule", sourceKey, localId: made.id, now: at.now });
    report.entries.push({ kind: "alert_rule", name, action: "created", ...note });
    return;
  }
  if (sameSettings(existing, settings)) {
    report.entries.push({ kind: "alert_rule", name, action: "unchanged", ...note });
    return;
  }
  await updateRule(tx, at.projectId, existing.id, settings, at.now);
  report.entries.push({ kind: "alert_rule", name, action: "updated", ...note });
}
