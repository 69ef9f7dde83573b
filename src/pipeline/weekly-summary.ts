/**
 * The weekly summary job (issue 30): once per installation and hour (storage/job-lock.ts: one
 * process at a time, one run per interval), every member who did not turn it off gets, per
 * organization, one email about the last complete week of the projects they may see (their teams'
 * projects; every project for admins and owners, and for everyone while the organization has no
 * team: storage/members/project-visibility.ts) — sent through the SMTP path alerts use, plain text
 * beside HTML. Each (member, organization, week) is claimed before its mail is sent, so a restart or
 * a second run in the same week sends nothing again; a failed send releases its claim for the next
 * run. Members who may see no project, or whose projects had nothing that week, get nothing.
 */
import type { SmtpConfig } from "../config";
import { type ProjectWeek, summaryHtml, summarySubject, summaryText, summaryWeek } from "../core/weekly-summary";
import type { Logger } from "../log";
import { sendMail } from "../net/mailer";
import type { Db } from "../storage/db";
import { writeTx } from "../storage/dialect";
import { claimJobRun, withJobLock } from "../storage/job-lock";
import { memberVisibleProjects } from "../storage/members/project-visibility";
import { claimSummarySend, projectWeek, releaseSummarySend, summaryRecipients } from "../storage/members/weekly-summary";

export interface WeeklySummaryOptions {
  db: Db;
  smtp: SmtpConfig | null;
  publicUrl: string;
  log: Logger;
  now: number;
  timeoutMs?: number;
}

const MAX_RECIPIENTS = 50_000;
const HOUR = 3_600_000;

export interface WeeklySummaryRun {
  week: { start: number; end: number };
  sent: number;
  skipped: number;
  failed: number;
}

export async function runWeeklySummary(o: WeeklySummaryOptions): Promise<WeeklySummaryRun> {
  const week = summaryWeek(o.now);
  const run: WeeklySummaryRun = { week, sent: 0, skipped: 0, failed: 0 };
  if (!o.smtp) return run;
  const weeks = new Map<number, ProjectWeek>();
  for (const r of await summaryRecipients(o.db, MAX_RECIPIENTS)) {
    const projects = await memberVisibleProjects(o.db, r.orgId, r.userId);
    const stats: ProjectWeek[] = [];
    for (const p of projects) {
      let w = weeks.get(p.id);
      if (!w) {
        w = await projectWeek(o.db, p, week.start, week.end);
        weeks.set(p.id, w);
      }
      stats.push(w);
    }
    const busy = stats.filter((s) => s.newIssues.count + s.regressions.count + s.busiest.length + s.releases.length > 0);
    if (busy.length === 0) {
      run.skipped++;
      continue;
    }
    const key = { userId: r.userId, orgId: r.orgId, weekStart: week.start };
    if (!(await writeTx(o.db, (tx) => claimSummarySend(tx, key, o.now)))) {
      run.skipped++;
      continue;
    }
    const summary = {
      org: { slug: r.orgSlug, name: r.orgName },
      member: { name: r.name, email: r.email },
      week,
      projects: busy,
      publicUrl: o.publicUrl.replace(/\/$/, ""),
    };
    try {
      await sendMail(
        o.smtp,
        {
          to: [r.email],
          subject: summarySubject(summary),
          text: summaryText(summary),
          html: summaryHtml(summary),
          idempotencyKey: `weekly-${r.orgId}-${r.userId}-${week.start}`,
        },
        o.timeoutMs ?? 10_000,
      );
      run.sent++;
    } catch (err) {
      run.failed++;
      await writeTx(o.db, (tx) => releaseSummarySend(tx, key));
      o.log.warn({ org: r.orgSlug, err: { message: (err as Error)?.message } }, "weekly summary not sent; will retry next run");
    }
  }
  return run;
}

/** The scheduled job: hourly, once across the installation; each week's mails go out once. */
export async function runWeeklySummaryJob(o: WeeklySummaryOptions): Promise<WeeklySummaryRun | null> {
  const res = await withJobLock(o.db, "weekly-summary", async () => {
    if (!(await claimJobRun(o.db, "weekly-summary", o.now, HOUR))) return null;
    return runWeeklySummary(o);
  });
  return res.ran ? res.value : null;
}
