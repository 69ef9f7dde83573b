import type { Metadata } from "next";
import Link from "next/link";
import { describeSchedule } from "@/core/monitors/checkin";
import { CodeBlock } from "@/ui/kit/code-block";
import { ProjectFilterForm } from "@/ui/kit/project-filter-form";
import { ScrollRegion } from "@/ui/kit/scroll-region";
import { TimeAgo } from "@/ui/kit/time-ago";
import { MonitorForm } from "@/ui/monitors/form";
import { CheckInStrip, STATUS_LABEL, StatusDot } from "@/ui/monitors/parts";
import { UptimeCreateForm } from "@/ui/monitors/uptime-form";
import { UptimeTable } from "@/ui/monitors/uptime-parts";
import { orNotFound, param, requireViewer, services, withQuery } from "../../_lib/server";
import { createCronMonitorAction, createUptimeAction } from "./actions";

export const metadata: Metadata = { title: "Monitors" };

const SNIPPET = `// Node: wrap the job; the monitor is created from monitor_config on the first check-in
await Sentry.withMonitor("nightly-report", () => runReport(), {
  schedule: { type: "crontab", value: "0 3 * * *" },
  timezone: "Europe/Vienna", checkinMargin: 5, maxRuntime: 30,
});

# Shell / cron: sentry-cli reports start, success or failure and duration
SENTRY_DSN=… sentry-cli monitors run -s "0 3 * * *" nightly-report -- ./report.sh`;

/**
 * Monitors of the organization: cron monitors (state, schedule, recent check-ins, next expected
 * run), then uptime checks with their create form for owners and admins.
 */
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
  const [can, projects, monitors, allUptime] = await Promise.all([
    orNotFound(s.orgs.can(viewer, org)),
    orNotFound(s.projects.list(viewer, org)),
    orNotFound(s.monitors.list(viewer, org, { project: project || undefined })),
    orNotFound(s.uptime.list(viewer, org)),
  ]);
  const uptime = project ? allUptime.filter((m) => m.projectSlug === project) : allUptime;
  // Only owners and admins create checks (the service enforces it; others get nothing to click).
  const canCreate = can["monitor.write"];
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
            A monitor notices the job that did not run. {canCreate ? "Create one below, or send" : "Send"} check-ins with a Sentry SDK or{" "}
            <code>sentry-cli monitors run</code>; the first check-in that carries a schedule creates the monitor.
          </p>
          <CodeBlock className="mt-4 max-w-3xl" code={SNIPPET} copyLabel="Copy monitor snippet" />
        </section>
      ) : (
        <ScrollRegion label="Monitors">
          <table className="w-full border-collapse text-[13px] whitespace-nowrap" data-testid="monitor-list">
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
                      {m.status === "paused" ? "–" : <NextRun ms={nexts.length ? Math.min(...nexts) : null} now={now} />}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </ScrollRegion>
      )}
      {canCreate && projects.length > 0 ? (
        <details className="group mt-3" open={monitors.length === 0}>
          <summary className="btn btn-sm mb-2 cursor-pointer list-none">New cron monitor</summary>
          <MonitorForm action={createCronMonitorAction} org={org} projects={projects} project={project} testId="monitor-create" />
        </details>
      ) : null}
      <section className="mt-6" aria-labelledby="uptime">
        <h2 id="uptime" className="mb-1 text-[15px] font-semibold">
          Uptime checks
        </h2>
        {uptime.length === 0 ? (
          <p className="max-w-prose text-fg-muted">
            No uptime checks{project ? " in this project" : ""} yet. A check requests a URL on a schedule and opens an issue when it stops
            answering as expected. {canCreate ? "Create one below, " : "Owners and admins create them here "}or with{" "}
            <code>POST /api/0/organizations/{org}/uptime/</code>.
          </p>
        ) : (
          <UptimeTable monitors={uptime} org={org} now={now} />
        )}
        {canCreate && projects.length > 0 ? (
          <details className="group mt-3" open={uptime.length === 0}>
            <summary className="btn btn-sm mb-2 cursor-pointer list-none">New uptime check</summary>
            <UptimeCreateForm action={createUptimeAction} org={org} projects={projects} project={project} />
          </details>
        ) : null}
      </section>
    </main>
  );
}

/** When the next check-in is due; one already past says "due … ago" (the miss is not yet counted), never a bare "21m ago" under "Next expected". */
function NextRun({ ms, now }: { ms: number | null; now: number }) {
  if (ms !== null && ms < now)
    return (
      <span>
        due <TimeAgo ms={ms} now={now} />
      </span>
    );
  return <TimeAgo ms={ms} now={now} />;
}
