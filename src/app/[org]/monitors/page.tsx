import type { Metadata } from "next";
import Link from "next/link";
import { describeSchedule } from "@/core/monitors/checkin";
import type { UptimeSummary } from "@/server/uptime-service";
import { CodeBlock } from "@/ui/code-block";
import { CheckInStrip, STATUS_LABEL, StatusDot } from "@/ui/monitor-parts";
import { ProjectFilterForm } from "@/ui/project-filter-form";
import { TimeAgo } from "@/ui/time-ago";
import { orNotFound, param, requireViewer, services, withQuery } from "../../_lib/server";

export const metadata: Metadata = { title: "Monitors" };

const SNIPPET = `// Node: wrap the job; the monitor is created from monitor_config on the first check-in
await Sentry.withMonitor("nightly-report", () => runReport(), {
  schedule: { type: "crontab", value: "0 3 * * *" },
  timezone: "Europe/Vienna", checkinMargin: 5, maxRuntime: 30,
});

# Shell / cron: sentry-cli reports start, success or failure and duration
SENTRY_DSN=… sentry-cli monitors run -s "0 3 * * *" nightly-report -- ./report.sh`;

/** Cron monitors of the organization: state, schedule, recent check-ins, next expected run. */
export default async function MonitorsPage({
  params,
  searchParams,
}: {
  params: Promise<{ org: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { org } = await params;
  const project = param((await searchParams).project)?.slice(0, 100) ?? "";
  const base = `/${encodeURIComponent(org)}/monitors`;
  const viewer = await requireViewer(withQuery(base, { project }));
  const s = await services();
  const [projects, monitors, uptime] = await Promise.all([
    orNotFound(s.projects.list(viewer, org)),
    orNotFound(s.monitors.list(viewer, org, { project: project || undefined })),
    orNotFound(s.uptime.list(viewer, org)),
  ]);
  const now = Date.now();
  return (
    <main className="mx-auto max-w-[1200px] px-4 py-4">
      <header className="mb-3 flex flex-wrap items-center gap-3">
        <h1 className="text-[18px] font-semibold">Cron monitors</h1>
        <ProjectFilterForm id="monitors-project" action={base} projects={projects} selected={project} />
      </header>
      {monitors.length === 0 ? (
        <section className="rounded-md border border-border px-6 py-6" aria-labelledby="no-monitors">
          <h2 id="no-monitors" className="text-[15px] font-semibold">
            No monitors yet
          </h2>
          <p className="mt-1 max-w-prose text-fg-muted">
            A monitor notices the job that did not run. Send check-ins with a Sentry SDK or <code>sentry-cli monitors run</code>; the first
            check-in that carries a schedule creates the monitor.
          </p>
          <CodeBlock className="mt-4 max-w-3xl" code={SNIPPET} copyLabel="Copy monitor snippet" />
        </section>
      ) : (
        <table className="w-full border-collapse text-[13px]" data-testid="monitor-list">
          <thead className="text-left text-[12px] text-fg-muted">
            <tr className="border-b border-border">
              <th className="py-1.5 pr-3 font-medium">Monitor</th>
              <th className="py-1.5 pr-3 font-medium">Schedule</th>
              <th className="py-1.5 pr-3 font-medium">Recent check-ins</th>
              <th className="py-1.5 pr-3 font-medium">Last check-in</th>
              <th className="py-1.5 pr-3 font-medium">Next expected</th>
            </tr>
          </thead>
          <tbody>
            {monitors.map((m) => {
              const env = m.environments[0];
              const status = m.status === "paused" ? "paused" : (env?.status ?? "active");
              const lastCheckIn = Math.max(0, ...m.environments.map((e) => e.lastCheckIn ?? 0)) || null;
              const nexts = m.environments.flatMap((e) => (e.nextCheckIn !== null ? [e.nextCheckIn] : []));
              return (
                <tr key={m.id} className="h-9 border-b border-border hover:bg-hover">
                  <td className="py-1 pr-3">
                    <span className="flex items-center gap-2">
                      <StatusDot status={status} />
                      <Link href={`${base}/${encodeURIComponent(m.slug)}`} className="font-semibold hover:underline">
                        {m.name}
                      </Link>
                      <span className="font-mono text-[11px] text-fg-dim">{m.projectSlug}</span>
                      <span className="text-[12px] text-fg-muted">{STATUS_LABEL[status] ?? status}</span>
                      {m.muted ? <span className="rounded border border-border px-1 text-[11px] text-fg-muted">muted</span> : null}
                    </span>
                  </td>
                  <td className="py-1 pr-3 font-mono text-[12px]">
                    {describeSchedule(m.config.schedule)}
                    {m.config.timezone !== "UTC" ? <span className="ml-1 text-fg-dim">{m.config.timezone}</span> : null}
                  </td>
                  <td className="py-1 pr-3">
                    <CheckInStrip checkIns={m.recent} />
                  </td>
                  <td className="py-1 pr-3 tabular text-fg-muted">
                    <TimeAgo ms={lastCheckIn} now={now} />
                  </td>
                  <td className="py-1 pr-3 tabular text-fg-muted">
                    {m.status === "paused" ? "–" : <TimeAgo ms={nexts.length ? Math.min(...nexts) : null} now={now} />}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <UptimeTable monitors={uptime} org={org} now={now} />
    </main>
  );
}

const pct = (v: number | null) => (v === null ? "–" : `${(v * 100).toFixed(v === 1 ? 0 : 2)} %`);

/** HTTP checks: state, last response, availability. Created through the REST API for now. */
function UptimeTable({ monitors, org, now }: { monitors: UptimeSummary[]; org: string; now: number }) {
  return (
    <section className="mt-6" aria-labelledby="uptime">
      <h2 id="uptime" className="mb-1 text-[15px] font-semibold">
        Uptime checks
      </h2>
      {monitors.length === 0 ? (
        <p className="max-w-prose text-fg-muted">
          No HTTP checks yet. Create one with <code>POST /api/0/organizations/{org}/uptime/</code> (url, method, interval_seconds ≥ 30,
          timeout_ms, status_min/status_max, keyword, headers, failure_threshold, recovery_threshold). Creating them here and the
          response-time chart are not yet available.
        </p>
      ) : (
        <table className="w-full border-collapse text-[13px]" data-testid="uptime-list">
          <thead className="text-left text-[12px] text-fg-muted">
            <tr className="border-b border-border">
              <th className="py-1.5 pr-3 font-medium">Check</th>
              <th className="py-1.5 pr-3 font-medium">URL</th>
              <th className="py-1.5 pr-3 font-medium">Last response</th>
              <th className="py-1.5 pr-3 text-right font-medium">24 h</th>
              <th className="py-1.5 pr-3 text-right font-medium">7 d</th>
              <th className="py-1.5 text-right font-medium">30 d</th>
            </tr>
          </thead>
          <tbody>
            {monitors.map((m) => (
              <tr key={m.id} className="h-9 border-b border-border">
                <td className="py-1 pr-3">
                  <span className="flex items-center gap-2">
                    <StatusDot status={m.state === "down" ? "error" : m.state === "up" ? "ok" : "active"} />
                    <span className="font-semibold">{m.name}</span>
                    <span className="text-[12px] text-fg-muted">{m.state === "down" ? "Down" : m.state === "up" ? "Up" : "Pending"}</span>
                  </span>
                </td>
                <td className="max-w-[320px] truncate py-1 pr-3 font-mono text-[12px]" title={m.config.url}>
                  {m.config.method} {m.config.url}
                </td>
                <td className="py-1 pr-3 tabular text-fg-muted">
                  {m.last ? (
                    <>
                      {m.last.status ?? m.last.error} · {m.last.latencyMs ?? "–"} ms · <TimeAgo ms={m.last.checkedAt} now={now} />
                    </>
                  ) : (
                    "–"
                  )}
                </td>
                <td className="py-1 pr-3 text-right tabular">{pct(m.availability.day)}</td>
                <td className="py-1 pr-3 text-right tabular">{pct(m.availability.week)}</td>
                <td className="py-1 text-right tabular">{pct(m.availability.month)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
