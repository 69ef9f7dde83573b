import type { Metadata } from "next";
import Link from "next/link";
import { describeSchedule } from "@/core/monitors/checkin";
import { CodeBlock } from "@/ui/kit/code-block";
import { countOf } from "@/ui/kit/format";
import { ScrollRegion } from "@/ui/kit/scroll-region";
import { TimeAgo } from "@/ui/kit/time-ago";
import { CheckInStrip, DurationsChart, formatDuration, STATUS_LABEL, StatusDot } from "@/ui/monitors/parts";
import { monitorRunLine } from "@/ui/monitors/run-line";
import { orNotFound, requireViewer, services } from "../../../_lib/server";
import { changeMonitor } from "../actions";

export const metadata: Metadata = { title: "Monitor" };

/** One monitor: configuration, state per environment, durations, check-in list; mute and pause. */
export default async function MonitorPage({
  params,
  searchParams,
}: {
  params: Promise<{ org: string; slug: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { org, slug } = await params;
  const refused = (await searchParams).refused;
  const path = `/${encodeURIComponent(org)}/monitors/${encodeURIComponent(slug)}`;
  const viewer = await requireViewer(path);
  const s = await services();
  const [m, checkIns, can] = await Promise.all([
    orNotFound(s.monitors.get(viewer, org, slug)),
    orNotFound(s.monitors.checkIns(viewer, org, slug, { limit: 100 })),
    orNotFound(s.orgs.can(viewer, org)),
  ]);
  // Mute, pause and edit are for owners and admins (the service refuses the others): only they see them.
  const canManage = can["monitor.write"];
  const now = Date.now();
  const c = m.config;
  const status = m.status === "paused" ? "paused" : (m.environments[0]?.status ?? "active");
  return (
    <main className="mx-auto max-w-[1200px] px-4 py-4">
      <nav className="mb-2 text-[12px] text-fg-muted">
        <Link href={`/${encodeURIComponent(org)}/monitors`} className="hover:underline">
          Monitors
        </Link>{" "}
        / <span className="font-mono">{m.slug}</span>
      </nav>
      <header className="mb-4 flex flex-wrap items-center gap-3">
        <StatusDot status={status} />
        <h1 className="text-[18px] font-semibold">{m.name}</h1>
        <span className="text-fg-muted" data-testid="monitor-status">
          {STATUS_LABEL[status] ?? status}
          {m.muted ? " · muted" : ""}
        </span>
        {canManage ? (
          <form action={changeMonitor} className="ml-auto flex gap-2">
            <input type="hidden" name="org" value={org} />
            <input type="hidden" name="slug" value={m.slug} />
            <button
              type="submit"
              name="change"
              value={m.muted ? "unmute" : "mute"}
              className="btn btn-sm"
              title="Muted monitors record check-ins but open no issues"
            >
              {m.muted ? "Unmute" : "Mute"}
            </button>
            <button
              type="submit"
              name="change"
              value={m.status === "paused" ? "resume" : "pause"}
              className="btn btn-sm"
              title="Paused monitors drop check-ins and are never marked missed"
            >
              {m.status === "paused" ? "Resume" : "Pause"}
            </button>
          </form>
        ) : null}
      </header>
      {refused ? (
        <p role="alert" className="mb-3 rounded-md border border-danger px-3 py-2 text-[12.5px] text-danger" data-testid="monitor-refused">
          {refused === "forbidden"
            ? "Not changed: only owners and admins can mute, pause or edit a monitor."
            : "Not changed: the monitor could not be updated."}
        </p>
      ) : null}

      <section className="mb-4 grid grid-cols-2 gap-x-6 gap-y-1 text-[13px] sm:grid-cols-4" aria-label="Configuration">
        <Field label="Schedule" value={describeSchedule(c.schedule)} mono />
        <Field label="Timezone" value={c.timezone} />
        <Field label="Check-in margin" value={`${c.checkinMargin} min`} />
        <Field label="Max runtime" value={`${c.maxRuntime} min`} />
        <Field label="Issue after" value={`${countOf(c.failureIssueThreshold, "failure")} in a row`} />
        <Field label="Resolve after" value={`${countOf(c.recoveryThreshold, "success", "successes")} in a row`} />
        <Field label="Project" value={m.projectSlug} mono />
      </section>

      <section className="mb-4" aria-labelledby="run-line">
        <h2 id="run-line" className="mb-1 text-[14px] font-semibold">
          Report to this monitor
        </h2>
        <p className="mb-2 max-w-prose text-[12.5px] text-fg-muted">
          Wrap the job with <code>sentry-cli monitors run</code>: it checks in when the job starts and again with its result and duration.
          The DSN is on the project's{" "}
          <Link
            href={`/${encodeURIComponent(org)}/projects/${encodeURIComponent(m.projectSlug)}/settings/keys`}
            className="underline underline-offset-2"
          >
            keys page
          </Link>
          .
        </p>
        {/* Scrolls on a phone: the kit's block is focusable, so a keyboard can scroll it, and copies. */}
        <CodeBlock className="max-w-3xl" code={monitorRunLine(m.slug, m.environments[0]?.name ?? "production")} copyLabel="Copy command" />
      </section>

      {canManage ? (
        <Link href={`${path}/edit`} className="btn btn-sm mb-4">
          Edit monitor
        </Link>
      ) : null}

      <section className="mb-4" aria-labelledby="envs">
        <h2 id="envs" className="mb-1 text-[14px] font-semibold">
          Environments
        </h2>
        {m.environments.length === 0 ? (
          <p className="text-fg-muted">No check-ins yet.</p>
        ) : (
          <ScrollRegion label="Environments">
            <table className="w-full border-collapse text-[13px] whitespace-nowrap">
              <tbody>
                {m.environments.map((e) => (
                  <tr key={e.name} className="h-8 border-b border-border">
                    <td className="pr-3">
                      <span className="flex items-center gap-2">
                        <StatusDot status={e.status} /> <span className="font-mono">{e.name}</span>
                      </span>
                    </td>
                    <td className="pr-3 text-fg-muted">{STATUS_LABEL[e.status] ?? e.status}</td>
                    <td className="pr-3 text-fg-muted">
                      last <TimeAgo ms={e.lastCheckIn} now={now} />
                    </td>
                    <td className="pr-3 text-fg-muted">
                      next {m.status === "paused" ? "– (paused)" : <TimeAgo ms={e.nextCheckIn} now={now} />}
                    </td>
                    <td className="text-right">
                      {e.issueId !== null ? (
                        <Link href={`/${encodeURIComponent(org)}/issues/${e.issueId}`} className="text-danger hover:underline">
                          Open issue
                        </Link>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollRegion>
        )}
      </section>

      <section className="mb-4" aria-labelledby="durations">
        <h2 id="durations" className="mb-1 text-[14px] font-semibold">
          Durations
        </h2>
        <DurationsChart checkIns={checkIns} />
      </section>

      <section aria-labelledby="checkins">
        <h2 id="checkins" className="mb-1 flex flex-wrap items-center gap-x-3 gap-y-1 text-[14px] font-semibold">
          Check-ins {/* 60 ticks are wider than a phone: the oldest give way, the newest stay at the right. */}
          <span className="flex min-w-0 max-w-full justify-end overflow-hidden">
            <CheckInStrip checkIns={checkIns} slots={60} />
          </span>
        </h2>
        <ScrollRegion label="Check-ins">
          <table className="w-full border-collapse text-[13px] whitespace-nowrap" data-testid="checkin-list">
            <thead className="text-left text-[12px] text-fg-muted">
              <tr className="border-b border-border">
                <th className="py-1 pr-3 font-medium">Status</th>
                <th className="py-1 pr-3 font-medium">Started</th>
                <th className="py-1 pr-3 font-medium">Duration</th>
                <th className="py-1 pr-3 font-medium">Environment</th>
                <th className="py-1 pr-3 font-medium">Expected at</th>
                <th className="py-1 font-medium">Check-in id</th>
              </tr>
            </thead>
            <tbody>
              {checkIns.map((ci) => (
                <tr key={ci.id} className="h-8 border-b border-border">
                  <td className="pr-3">
                    <span className="flex items-center gap-2">
                      <StatusDot status={ci.status} /> {STATUS_LABEL[ci.status] ?? ci.status}
                    </span>
                  </td>
                  <td className="pr-3 tabular text-fg-muted">
                    <TimeAgo ms={ci.createdAt} now={now} />
                  </td>
                  <td className="pr-3 tabular">{ci.durationMs !== null ? formatDuration(ci.durationMs) : "–"}</td>
                  <td className="pr-3 font-mono text-[12px]">{ci.environment}</td>
                  <td className="pr-3 tabular text-fg-muted">{ci.expectedAt !== null ? <TimeAgo ms={ci.expectedAt} now={now} /> : "–"}</td>
                  <td className="font-mono text-[11px] text-fg-dim">{ci.checkInId}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      </section>
    </main>
  );
}

function Field({ label, value, mono }: { label: string; value: string; mono?: boolean }) {
  return (
    <div className="flex flex-col py-1">
      <span className="text-[11px] uppercase tracking-wide text-fg-dim">{label}</span>
      <span className={mono ? "font-mono text-[12px]" : ""}>{value}</span>
    </div>
  );
}
