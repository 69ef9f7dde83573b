/**
 * Reading Sentry's REST API answers for an import (issue 32), without I/O: the shapes we rely on
 * (Sentry's serializers for organizations, teams, projects and DSN keys; GlitchTip and Errata answer
 * the same fields), the `Link` pagination header, and how each object maps onto Errata's.
 *
 * The schemas are lenient on purpose: servers add fields all the time and omit optional ones; only
 * what the import needs is required, and an answer missing it is "not Sentry's API".
 */
import { z } from "zod";
import { DEFAULT_SCRUB_SETTINGS, type ScrubSettings } from "../scrub/scrub-event";
import { slugify } from "../validation";

const id = z.union([z.string(), z.number()]).transform(String);
const optionalText = z.string().nullish();

export const sentryOrgSchema = z.object({ id, slug: z.string().min(1), name: z.string().nullish() });

export const sentryTeamSchema = z.object({
  id,
  slug: z.string().min(1),
  name: z.string().nullish(),
  /** Sentry includes a team's projects unless `?detailed=0`. */
  projects: z.array(z.object({ id: id.optional(), slug: z.string() })).nullish(),
});

export const sentryProjectSchema = z.object({
  id,
  slug: z.string().min(1),
  name: z.string().nullish(),
  platform: optionalText,
  teams: z.array(z.object({ slug: z.string() })).nullish(),
});

/** The project details endpoint adds the settings (data scrubbing among them). */
export const sentryProjectDetailSchema = sentryProjectSchema.extend({
  dataScrubber: z.boolean().nullish(),
  scrubIPAddresses: z.boolean().nullish(),
  sensitiveFields: z.array(z.string()).nullish(),
  safeFields: z.array(z.string()).nullish(),
  /** Sentry's fingerprint and stack-trace rules, in its own syntax (Errata reads the same) */
  fingerprintingRules: z.string().nullish(),
  groupingEnhancements: z.string().nullish(),
});

export const sentryKeySchema = z.object({
  id: id.optional(),
  name: z.string().nullish(),
  label: z.string().nullish(),
  public: z.string(),
  secret: z.string().nullish(),
  projectId: id.nullish(),
  isActive: z.boolean().nullish(),
  dsn: z.object({ public: z.string().nullish(), secret: z.string().nullish() }).nullish(),
  rateLimit: z.object({ window: z.number(), count: z.number() }).nullish(),
});

/** Sentry's organization member (an invitation there has `pending: true` and no user). */
export const sentryMemberSchema = z.object({
  id: id.optional(),
  email: z.string().nullish(),
  /** `orgRole` in current Sentry; `role` in older versions, GlitchTip and Errata */
  orgRole: z.string().nullish(),
  role: z.string().nullish(),
  pending: z.boolean().nullish(),
  /** team slugs */
  teams: z.array(z.string()).nullish(),
  teamRoles: z.array(z.object({ teamSlug: z.string() })).nullish(),
  user: z.object({ id: id.optional(), email: z.string().nullish() }).nullish(),
});

export type SentryMember = z.infer<typeof sentryMemberSchema>;

export type ImportedRole = "owner" | "admin" | "member" | "viewer";

/**
 * Sentry's organization roles as Errata's: owner → owner; manager and admin → admin (they manage
 * projects and teams); member → member; billing (no access to events) → viewer; anything else,
 * member (Errata's roles: owner, admin, member, viewer).
 */
export function importedRole(m: SentryMember): ImportedRole {
  const r = (m.orgRole ?? m.role ?? "").toLowerCase();
  if (r === "owner") return "owner";
  if (r === "manager" || r === "admin") return "admin";
  if (r === "billing" || r === "viewer") return "viewer";
  return "member";
}

const EMAIL_RULE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The member's email (lower-cased) and team slugs, or the reason it cannot be invited. */
export function importedMember(
  m: SentryMember,
): { ok: true; email: string; role: ImportedRole; teamSlugs: string[] } | { ok: false; reason: string } {
  const email = (m.email ?? m.user?.email ?? "").trim().toLowerCase();
  if (!EMAIL_RULE.test(email) || email.length > 254) return { ok: false, reason: "no usable email address" };
  const slugs = new Set([...(m.teams ?? []), ...(m.teamRoles ?? []).map((t) => t.teamSlug)].map(importedSlug));
  return { ok: true, email, role: importedRole(m), teamSlugs: [...slugs].sort() };
}

export type SentryOrg = z.infer<typeof sentryOrgSchema>;
export type SentryTeam = z.infer<typeof sentryTeamSchema>;
export type SentryProject = z.infer<typeof sentryProjectSchema>;
export type SentryProjectDetail = z.infer<typeof sentryProjectDetailSchema>;
export type SentryKey = z.infer<typeof sentryKeySchema>;

/**
 * The next page's URL from Sentry's `Link` header, or null on the last page. Sentry always sends
 * both `rel="previous"` and `rel="next"`; a next link with `results="false"` means no more rows.
 */
export function nextPageUrl(link: string | undefined): string | null {
  if (!link) return null;
  for (const part of link.split(/,(?=\s*<)/)) {
    const m = /^\s*<([^>]*)>(.*)$/.exec(part);
    if (!m) continue;
    const params = new Map<string, string>();
    for (const p of m[2].split(";")) {
      const kv = /^\s*([a-z]+)\s*=\s*"?([^"]*)"?\s*$/i.exec(p);
      if (kv) params.set(kv[1].toLowerCase(), kv[2]);
    }
    if (params.get("rel") !== "next") continue;
    // Servers that do not say `results` (RFC 8288 plain) mean "there is a next page".
    if (params.get("results") === "false") return null;
    return m[1] || null;
  }
  return null;
}

const SLUG_RULE = /^[a-z0-9](?:[a-z0-9-]{0,48}[a-z0-9])?$/;
const PLATFORM_RULE = /^[a-z0-9][a-z0-9-]{0,63}$/;
const PUBLIC_KEY_RULE = /^[0-9a-f]{8,64}$/;

/** Errata's slug for a Sentry slug: the same when it fits our rule (Sentry also allows `_`). */
export function importedSlug(slug: string): string {
  const lower = slug.toLowerCase();
  return SLUG_RULE.test(lower) ? lower : slugify(lower);
}

export function importedPlatform(platform: string | null | undefined): string {
  const p = (platform ?? "").trim().toLowerCase();
  return PLATFORM_RULE.test(p) ? p : "other";
}

export function importedName(name: string | null | undefined, slug: string): string {
  const n = (name ?? "").trim();
  return (n || slug).slice(0, 100);
}

/** Sentry's data-scrubbing settings as Errata's; only the fields the source sent. */
export function importedScrubbing(d: SentryProjectDetail): ScrubSettings | undefined {
  const sent = d.dataScrubber != null || d.scrubIPAddresses != null || d.sensitiveFields != null || d.safeFields != null;
  if (!sent) return undefined;
  const list = (l: string[] | null | undefined) =>
    [...new Set((l ?? []).map((s) => s.trim()).filter((s) => s && s.length <= 100))].slice(0, 100);
  return {
    enabled: d.dataScrubber ?? DEFAULT_SCRUB_SETTINGS.enabled,
    scrubIp: d.scrubIPAddresses ?? DEFAULT_SCRUB_SETTINGS.scrubIp,
    extraKeys: list(d.sensitiveFields),
    safeKeys: list(d.safeFields),
  };
}

export interface ImportedKey {
  publicKey: string;
  secretKey: string | null;
  label: string;
  active: boolean;
}

/** A Sentry DSN key as Errata stores it, or the reason it cannot be. */
export function importedKey(k: SentryKey): { ok: true; key: ImportedKey } | { ok: false; reason: string } {
  const publicKey = k.public.trim().toLowerCase();
  if (!PUBLIC_KEY_RULE.test(publicKey)) return { ok: false, reason: "its public key is not 8–64 hexadecimal characters" };
  const secret = (k.secret ?? "").trim();
  return {
    ok: true,
    key: {
      publicKey,
      secretKey: secret ? secret.slice(0, 128) : null,
      label: ((k.label ?? k.name ?? "").trim() || "Default").slice(0, 64),
      active: k.isActive ?? true,
    },
  };
}

/** The project id an imported project's old DSNs carry (from the project, else from a key). */
export function sourceProjectId(p: SentryProject, keys: SentryKey[]): number | null {
  for (const candidate of [p.id, ...keys.map((k) => k.projectId)]) {
    const n = Number(candidate);
    if (Number.isSafeInteger(n) && n > 0) return n;
  }
  return null;
}

/** What happened to one object. */
export type ImportAction = "created" | "updated" | "unchanged" | "skipped";

export type ImportKind = "organization" | "team" | "project" | "key" | "member" | "alert_rule" | "release" | "issue" | "ownership";

export interface ImportReportEntry {
  kind: ImportKind;
  /** slug, or for keys `project/label (publickey…)` */
  name: string;
  action: ImportAction;
  /** why it was skipped, or what was kept/changed worth saying (e.g. the DSN id alias) */
  note?: string;
}

export interface ImportReport {
  dryRun: boolean;
  organization: string;
  entries: ImportReportEntry[];
}

/** Counts per action, for the CLI's summary line and the page. */
export function summarizeReport(r: ImportReport): Record<ImportAction, number> {
  const out: Record<ImportAction, number> = { created: 0, updated: 0, unchanged: 0, skipped: 0 };
  for (const e of r.entries) out[e.action]++;
  return out;
}

/** Progress through the import's steps, for a progress bar. */
export interface ImportProgress {
  step: string;
  done: number;
  total: number;
}
