/**
 * Sentry's project serializer shape, for `sentry-cli projects list` and scripts reading
 * `GET /api/0/organizations/{org}/projects/` and `GET /api/0/projects/{org}/{project}/`.
 * The detail adds the owning teams and `firstEvent` (ProjectReads.ownership) and the settings;
 * lists leave the teams empty. `has*` flags come from what Errata keeps (ProjectFacts); features
 * Errata does not have (insights, profiles, trace metrics, Seer, dynamic sampling) answer
 * Sentry's own "not available": false, or null where Sentry would send a computed value.
 */
import { createHash } from "node:crypto";
import { emptyProjectFacts, type ProjectFacts } from "../../../storage/orgs/project-facts";
import type { ProjectSettingsView } from "../../orgs/project-admin";
import type { ProjectOwnership } from "../../orgs/reads";
import type { OrgSummary, ProjectSummary } from "../../types";

export interface SentryProjectContext {
  /** the caller's scopes (Sentry's `access`) */
  access: string[];
  facts?: ProjectFacts;
  own?: ProjectOwnership;
  /** the projects of the caller's teams (ProjectSentryFacts.memberOf) */
  memberOf?: Set<number>;
}

export function sentryProject(p: ProjectSummary, org: OrgSummary, ctx: SentryProjectContext) {
  const teams = (ctx.own?.teams ?? []).map((t) => ({ id: String(t.id), slug: t.slug, name: t.name }));
  const f = ctx.facts ?? emptyProjectFacts();
  return {
    id: String(p.id),
    slug: p.slug,
    name: p.name,
    platform: p.platform,
    platforms: [p.platform],
    status: "active",
    isBookmarked: false,
    isMember: ctx.memberOf?.has(p.id) ?? false,
    // Errata lists and answers only the projects the caller may see.
    hasAccess: true,
    access: ctx.access,
    features: [],
    team: teams[0] ?? null,
    teams,
    firstEvent: ctx.own?.firstEvent ? new Date(ctx.own.firstEvent).toISOString() : null,
    // Sentry's has_transactions flag: a transaction was ever accepted.
    firstTransactionEvent: f.accepted.has("transaction"),
    dateCreated: p.createdAt ? new Date(p.createdAt).toISOString() : null,
    environments: f.environments,
    latestRelease: f.latestRelease === null ? null : { version: f.latestRelease },
    hasMonitors: f.hasMonitors,
    hasFeedbacks: f.hasFeedbacks,
    hasNewFeedbacks: f.hasNewFeedbacks,
    hasUserReports: f.hasUserReports,
    hasLogs: f.accepted.has("log_item") || f.accepted.has("log_byte"),
    hasSessions: f.accepted.has("session"),
    // Sentry's has_replays flag: a replay was ever accepted (clients such as the MCP server gate on it).
    hasReplays: f.accepted.has("replay"),
    // Errata keeps no profiles, trace metrics or insights modules.
    hasProfiles: false,
    hasTraceMetrics: false,
    hasInsightsHttp: false,
    hasInsightsDb: false,
    hasInsightsAssets: false,
    hasInsightsAppStart: false,
    hasInsightsScreenLoad: false,
    hasInsightsVitals: false,
    hasInsightsCaches: false,
    hasInsightsQueues: false,
    hasInsightsAgentMonitoring: false,
    hasInsightsMCP: false,
    organization: { id: String(org.id), slug: org.slug, name: org.name },
  };
}

/** Sentry's project detail: the summary plus the settings, from Errata's own where it has them. */
export function sentryProjectDetail(p: ProjectSummary, org: OrgSummary, ctx: SentryProjectContext, s: ProjectSettingsView) {
  const scrub = s.scrubbing;
  const expiry = s.grouping.previous && s.grouping.switchedAt ? s.grouping.switchedAt + s.grouping.transitionDays * 86_400_000 : null;
  return {
    ...sentryProject(p, org, ctx),
    color: hashedColor(p.slug),
    avatar: { avatarType: "letter_avatar", avatarUuid: null, avatarUrl: null },
    isInternal: false,
    isPublic: false,
    // Ingest answers every origin (compat/cors.ts): Sentry's "*".
    allowedDomains: ["*"],
    // Errata's scrubber applies its default key list whenever it runs (core/scrub).
    dataScrubber: scrub.enabled,
    dataScrubberDefaults: scrub.enabled,
    scrubIPAddresses: scrub.scrubIp,
    sensitiveFields: scrub.extraKeys,
    safeFields: scrub.safeKeys,
    secondaryGroupingConfig: s.grouping.previous,
    // Sentry: unix seconds when the old config stops being matched, 0 when none.
    secondaryGroupingExpiry: expiry === null ? 0 : Math.floor(expiry / 1000),
    // Settings Errata has no such option for: Sentry's "not set".
    defaultEnvironment: null,
    debugFilesRole: null,
    relayPiiConfig: null,
    securityToken: null,
    securityTokenHeader: null,
    storeCrashReports: null,
    subjectPrefix: null,
    subjectTemplate: null,
    digestsMinDelay: null,
    digestsMaxDelay: null,
    derivedGroupingEnhancements: null,
    highlightContext: null,
    highlightPreset: null,
    highlightTags: null,
    dynamicSamplingBiases: null,
    seerNightshiftTweaks: null,
    // Errata never fetches sources from the web or an SCM, nor symbols from symbol servers.
    scrapeJavaScript: false,
    verifySSL: false,
    scmSourceContextEnabled: false,
    builtinSymbolSources: [],
    symbolSources: "[]",
    // No auto-resolve by age (0 is Sentry's "never"); no processing-issue queue; no dynamic sampling, Seer or Tempest.
    resolveAge: 0,
    processingIssues: 0,
    isDynamicallySampled: false,
    autofixAutomationTuning: "off",
    seerScannerAutomation: false,
    tempestFetchScreenshots: false,
    options: {
      "sentry:scrub_data": scrub.enabled,
      "sentry:scrub_defaults": scrub.enabled,
      "sentry:scrub_ip_address": scrub.scrubIp,
      "sentry:sensitive_fields": scrub.extraKeys,
      "sentry:safe_fields": scrub.safeKeys,
      "sentry:grouping_config": s.grouping.version,
      "sentry:resolve_age": 0,
    },
  };
}

/** Sentry's Project.color: sentry.utils.colors.get_hashed_color(slug) (md5 → hue, HLS 0.5/0.5). */
export function hashedColor(slug: string): string {
  const hue = Number.parseInt(createHash("md5").update(slug, "utf8").digest("hex").slice(0, 3), 16) / 4096;
  const [r, g, b] = hlsToRgb(hue, 0.5, 0.5).map((c) => Math.trunc(c * 255));
  return `#${[r, g, b].map((c) => (c ?? 0).toString(16).padStart(2, "0")).join("")}`;
}

/** Python's colorsys.hls_to_rgb. */
function hlsToRgb(h: number, l: number, s: number): [number, number, number] {
  if (s === 0) return [l, l, l];
  const m2 = l <= 0.5 ? l * (1 + s) : l + s - l * s;
  const m1 = 2 * l - m2;
  return [v(m1, m2, h + 1 / 3), v(m1, m2, h), v(m1, m2, h - 1 / 3)];
}

function v(m1: number, m2: number, hue: number): number {
  const h = ((hue % 1) + 1) % 1;
  if (h < 1 / 6) return m1 + (m2 - m1) * h * 6;
  if (h < 0.5) return m2;
  if (h < 2 / 3) return m1 + (m2 - m1) * (2 / 3 - h) * 6;
  return m1;
}
