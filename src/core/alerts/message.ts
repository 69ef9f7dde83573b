/**
 * The alert message: a snapshot taken when the trigger is recorded (inside the digest
 * transaction) and stored on the notification row, so delivery needs no reads and sends what was
 * true at that moment. Versioned: `v` is part of the generic webhook's documented schema.
 */
import type { NormalizedEvent } from "../event";
import { formatRate } from "../sessions";
import { type NextjsAlert, nextjsDetails, nextjsFacts, nextjsSubject } from "./nextjs-alert";
import type { TriggerKind } from "./types";

export const MESSAGE_VERSION = 1;

/** Tags worth showing in a message (others stay on the issue page). */
const SHOWN_TAGS = ["environment", "release", "level", "handled", "browser", "os", "runtime", "url", "server_name", "transaction", "user"];

export interface TopFrame {
  function: string | null;
  filename: string | null;
  lineno: number | null;
}

export interface IssueAlert {
  v: number;
  kind: "alert";
  trigger: TriggerKind;
  rule: { id: number; name: string };
  org: { slug: string };
  project: { id: number; slug: string; name: string };
  issue: {
    id: number;
    shortId: string;
    title: string;
    culprit: string;
    level: string;
    status: string;
    substatus: string;
    firstSeen: number;
    lastSeen: number;
    count: number;
    userCount: number;
  };
  event: {
    id: string;
    environment: string | null;
    release: string | null;
    topFrame: TopFrame | null;
    tags: Array<[string, string]>;
  };
  /** what the Next.js rules found (digest and its other side, deploy skew, decoded React error) */
  nextjs?: NextjsAlert;
  /** path of the issue page (the digest page once both sides are known), prefixed with PUBLIC_URL when sent */
  path: string;
}

/**
 * A release-level alert (the crash-free trigger): no issue, no event — the release's session
 * totals when the rate dropped below the rule's threshold. `kind` tells it apart from issue alerts.
 */
export interface ReleaseAlert {
  v: number;
  kind: "release";
  trigger: "crash_free";
  rule: { id: number; name: string };
  org: { slug: string };
  project: { id: number; slug: string; name: string };
  release: {
    version: string;
    /** the environments whose sessions were counted (the rule's filter); empty = every environment */
    environments: string[];
    /** sessions counted for the release in this project (those environments) */
    sessions: number;
    crashed: number;
    /** share of those sessions that did not crash, 0–1 (the release page's figure) */
    crashFreeSessions: number;
  };
  threshold: { belowPercent: number; minSessions: number };
  /** path of the release page, prefixed with PUBLIC_URL when sent */
  path: string;
}

export interface HeldDigest {
  v: number;
  kind: "digest";
  rule: { id: number; name: string };
  org: { slug: string };
  project: { id: number; slug: string; name: string };
  /** messages held back by the hourly cap (at most 50 listed; `heldCount` counts all) */
  held: Array<{ trigger: TriggerKind; shortId: string; title: string; path: string; at: number }>;
  heldCount: number;
  path: string;
}

export interface TestMessage {
  v: number;
  kind: "test";
  org: { slug: string };
  project: { id: number; slug: string; name: string };
  channel: { id: number; name: string };
  path: string;
}

export type AlertMessage = IssueAlert | ReleaseAlert | HeldDigest | TestMessage;

/** The crash frame an engineer looks at first: the innermost in-app frame, else the innermost. */
export function topFrameOf(event: Pick<NormalizedEvent, "exception">): TopFrame | null {
  const values = event.exception?.values ?? [];
  const frames = values.at(-1)?.stacktrace?.frames ?? [];
  const pick = [...frames].reverse().find((f) => f?.in_app === true) ?? frames.at(-1);
  if (!pick) return null;
  return {
    function: typeof pick.function === "string" ? pick.function : null,
    filename: typeof pick.filename === "string" ? pick.filename : typeof pick.abs_path === "string" ? pick.abs_path : null,
    lineno: typeof pick.lineno === "number" ? pick.lineno : null,
  };
}

export function hasInAppFrame(event: Pick<NormalizedEvent, "exception">): boolean {
  for (const v of event.exception?.values ?? []) {
    if ((v.stacktrace?.frames ?? []).some((f) => f?.in_app === true)) return true;
  }
  return false;
}

export function shownTags(tags: Array<[string, string]>): Array<[string, string]> {
  return tags.filter(([k]) => SHOWN_TAGS.includes(k)).slice(0, 10);
}

export function formatShortId(projectSlug: string, shortId: number): string {
  return `${projectSlug.toUpperCase()}-${shortId}`;
}

export function issuePath(orgSlug: string, issueId: number): string {
  return `/${encodeURIComponent(orgSlug)}/issues/${issueId}`;
}

export function releasePath(orgSlug: string, version: string): string {
  return `/${encodeURIComponent(orgSlug)}/releases/${encodeURIComponent(version)}`;
}

export function alertsSettingsPath(orgSlug: string, projectSlug: string): string {
  return `/${encodeURIComponent(orgSlug)}/projects/${encodeURIComponent(projectSlug)}/settings/alerts`;
}

const TRIGGER_WORDS: Record<TriggerKind, string> = {
  new_issue: "New issue",
  regression: "Regression",
  unignored: "Unignored",
  frequency: "Frequency threshold",
  crash_free: "Crash-free sessions",
};

/** One line that says what happened: "Regression in web: TypeError: x is undefined". */
export function headline(m: AlertMessage): string {
  if (m.kind === "test") return `Test message from Errata for ${m.project.name} (${m.channel.name})`;
  if (m.kind === "digest")
    return `${m.heldCount} alert${m.heldCount === 1 ? "" : "s"} held back by the hourly cap for rule "${m.rule.name}"`;
  if (m.kind === "release")
    return `Crash-free sessions below ${m.threshold.belowPercent}% in ${m.project.name}: release ${m.release.version} at ${formatRate(m.release.crashFreeSessions)}`;
  if (m.nextjs?.skew) return nextjsSubject(m.nextjs, m.project.name) as string;
  return `${TRIGGER_WORDS[m.trigger]} in ${m.project.name}: ${nextjsSubject(m.nextjs, m.project.name) ?? m.issue.title}`;
}

export function frameText(f: TopFrame | null): string | null {
  if (!f) return null;
  const where = f.filename ? `${f.filename}${f.lineno !== null ? `:${f.lineno}` : ""}` : "";
  const fn = f.function ?? "?";
  return where ? `${fn} (${where})` : fn;
}

/** Lines under the headline (monospace where the target has it): an issue's culprit and top frame. */
export function detailLines(m: AlertMessage): string[] {
  if (m.kind !== "alert") return [];
  const out: string[] = nextjsDetails(m.nextjs);
  if (m.issue.culprit) out.push(m.issue.culprit);
  const frame = frameText(m.event.topFrame);
  if (frame) out.push(`at ${frame}`);
  return out;
}

/** The event's shown tags (issue alerts only). */
export function tagsOf(m: AlertMessage): Array<[string, string]> {
  return m.kind === "alert" ? m.event.tags : [];
}

/** Key facts as label/value pairs, in display order (email, Slack fields, Teams facts…); none for digests and tests. */
export function facts(m: AlertMessage): Array<[string, string]> {
  if (m.kind === "release") return releaseFacts(m);
  if (m.kind !== "alert") return [];
  const out: Array<[string, string]> = [
    ["Issue", m.issue.shortId],
    ["Project", m.project.name],
    ["Level", m.issue.level],
    ...nextjsFacts(m.nextjs),
  ];
  if (m.event.environment) out.push(["Environment", m.event.environment]);
  if (m.event.release) out.push(["Release", m.event.release]);
  out.push(["Events", String(m.issue.count)], ["Users", String(m.issue.userCount)]);
  out.push(["First seen", new Date(m.issue.firstSeen).toISOString()], ["Last seen", new Date(m.issue.lastSeen).toISOString()]);
  return out;
}

function releaseFacts(m: ReleaseAlert): Array<[string, string]> {
  const r = m.release;
  const out: Array<[string, string]> = [
    ["Release", r.version],
    ["Project", m.project.name],
  ];
  if (r.environments.length > 0) out.push(["Environment", r.environments.join(", ")]);
  out.push(
    ["Crash-free sessions", formatRate(r.crashFreeSessions)],
    ["Threshold", `below ${m.threshold.belowPercent}% (at least ${m.threshold.minSessions} sessions)`],
    ["Sessions", String(r.sessions)],
    ["Crashed", String(r.crashed)],
  );
  return out;
}

/** The one-line summary a held-back digest lists for an alert (issue or release). */
export function heldEntry(m: IssueAlert | ReleaseAlert): { trigger: TriggerKind; shortId: string; title: string; path: string } {
  if (m.kind === "release")
    return {
      trigger: m.trigger,
      shortId: m.release.version,
      title: `Crash-free sessions ${formatRate(m.release.crashFreeSessions)} (below ${m.threshold.belowPercent}%)`,
      path: m.path,
    };
  const subject = m.nextjs?.skew ? headline(m) : nextjsSubject(m.nextjs, m.project.name);
  return { trigger: m.trigger, shortId: m.issue.shortId, title: subject ?? m.issue.title, path: m.path };
}

/** What a held alert is about: two channels' copies of one alert count once in the digest. */
export function alertSubjectKey(m: IssueAlert | ReleaseAlert): string {
  return m.kind === "release" ? `release:${m.release.version}` : `issue:${m.issue.id}`;
}
