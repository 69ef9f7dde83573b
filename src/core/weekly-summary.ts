/**
 * The weekly summary email (issue 30), pure: which week it covers and how it reads, as plain text
 * and as HTML (everything from events escaped). One email per member and organization, about the
 * projects of the member's teams: new issues, regressions, the busiest issues and crash-free
 * sessions per release.
 */
import { escapeHtml } from "./alerts/render-text";
import { crashFreeRate, formatRate } from "./sessions";

const DAY = 86_400_000;
export const WEEK = 7 * DAY;

/** The week a summary sent at `now` covers: the last complete Monday–Sunday (UTC). */
export function summaryWeek(now: number): { start: number; end: number } {
  const d = new Date(now);
  const today = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  const sinceMonday = (d.getUTCDay() + 6) % 7;
  const end = today - sinceMonday * DAY;
  return { start: end - WEEK, end };
}

export interface SummaryIssue {
  id: number;
  shortId: string;
  title: string;
  /** events in the week (busiest) */
  events?: number;
}

export interface ProjectWeek {
  slug: string;
  name: string;
  newIssues: { count: number; top: SummaryIssue[] };
  regressions: { count: number; top: SummaryIssue[] };
  busiest: SummaryIssue[];
  releases: Array<{ version: string; sessions: number; crashed: number }>;
}

export interface WeeklySummary {
  org: { slug: string; name: string };
  member: { name: string; email: string };
  week: { start: number; end: number };
  projects: ProjectWeek[];
  /** absolute links: the issue page, the account page (turn it off) */
  publicUrl: string;
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en")} ${n === 1 ? one : many}`;

export function summarySubject(s: WeeklySummary): string {
  const fresh = s.projects.reduce((n, p) => n + p.newIssues.count, 0);
  const back = s.projects.reduce((n, p) => n + p.regressions.count, 0);
  return `[Errata] ${s.org.name}: week of ${day(s.week.start)} — ${plural(fresh, "new issue")}, ${plural(back, "regression")}`.slice(
    0,
    250,
  );
}

const issueUrl = (s: WeeklySummary, i: SummaryIssue) => `${s.publicUrl}/${encodeURIComponent(s.org.slug)}/issues/${i.id}`;
const rate = (r: { sessions: number; crashed: number }) => formatRate(crashFreeRate({ total: r.sessions, crashed: r.crashed }) ?? 1);

export function summaryText(s: WeeklySummary): string {
  const out = [`Errata weekly summary for ${s.org.name}, ${day(s.week.start)} to ${day(s.week.end - DAY)} (UTC).`, ""];
  for (const p of s.projects) {
    out.push(`== ${p.name} (${p.slug}) ==`);
    out.push(`New issues: ${p.newIssues.count}`);
    for (const i of p.newIssues.top) out.push(`  ${i.shortId} ${i.title}  ${issueUrl(s, i)}`);
    out.push(`Regressions: ${p.regressions.count}`);
    for (const i of p.regressions.top) out.push(`  ${i.shortId} ${i.title}  ${issueUrl(s, i)}`);
    out.push("Busiest issues:");
    if (p.busiest.length === 0) out.push("  none");
    for (const i of p.busiest) out.push(`  ${i.shortId} ${i.title} — ${plural(i.events ?? 0, "event")}  ${issueUrl(s, i)}`);
    out.push("Crash-free sessions by release:");
    if (p.releases.length === 0) out.push("  no sessions");
    for (const r of p.releases) out.push(`  ${r.version}: ${rate(r)} of ${plural(r.sessions, "session")}`);
    out.push("");
  }
  out.push(`You get this because you are on a team of these projects. Turn it off: ${s.publicUrl}/account#weekly-summary`);
  return out.join("\n");
}

export function summaryHtml(s: WeeklySummary): string {
  const e = escapeHtml;
  const list = (items: SummaryIssue[], extra?: (i: SummaryIssue) => string) =>
    items.length === 0
      ? ""
      : `<ul>${items.map((i) => `<li><a href="${e(issueUrl(s, i))}">${e(i.shortId)}</a> ${e(i.title)}${extra ? extra(i) : ""}</li>`).join("")}</ul>`;
  const parts = [
    `<p>Errata weekly summary for <strong>${e(s.org.name)}</strong>, ${day(s.week.start)} to ${day(s.week.end - DAY)} (UTC).</p>`,
  ];
  for (const p of s.projects) {
    parts.push(
      `<h2 style="font-size:16px">${e(p.name)} <span style="color:#66666f">(${e(p.slug)})</span></h2>`,
      `<p><strong>New issues:</strong> ${p.newIssues.count}</p>${list(p.newIssues.top)}`,
      `<p><strong>Regressions:</strong> ${p.regressions.count}</p>${list(p.regressions.top)}`,
      `<p><strong>Busiest issues</strong></p>${p.busiest.length ? list(p.busiest, (i) => ` — ${e(plural(i.events ?? 0, "event"))}`) : "<p>none</p>"}`,
      `<p><strong>Crash-free sessions by release</strong></p>${
        p.releases.length
          ? `<table cellpadding="4"><tr><th align="left">Release</th><th align="right">Crash-free</th><th align="right">Sessions</th></tr>${p.releases
              .map(
                (r) =>
                  `<tr><td>${e(r.version)}</td><td align="right">${e(rate(r))}</td><td align="right">${r.sessions.toLocaleString("en")}</td></tr>`,
              )
              .join("")}</table>`
          : "<p>no sessions</p>"
      }`,
    );
  }
  parts.push(
    `<p style="color:#66666f;font-size:12px">You get this because you are on a team of these projects. <a href="${e(s.publicUrl)}/account#weekly-summary">Turn it off</a>.</p>`,
  );
  return `<!doctype html><html><body style="font-family:system-ui,sans-serif;font-size:14px">${parts.join("\n")}</body></html>`;
}
