import type { ReactNode } from "react";
import type { BackupRun, BackupStatus } from "@/server/installation/backups";
import { absoluteTime } from "../kit/format";
import { TimeAgo } from "../kit/time-ago";

/** Bytes as the page shows them: one decimal, binary units. */
export function sizeText(bytes: number | null): string {
  if (bytes === null) return "—";
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u += 1;
  }
  return u === 0 ? `${v} B` : `${v.toFixed(1)} ${units[u]}`;
}

function Fact({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  return (
    <div className="min-w-0 border-b border-border py-2 last:border-b-0 sm:grid sm:grid-cols-[160px_1fr] sm:gap-3">
      <dt className="text-[12px] text-fg-muted">{label}</dt>
      <dd className="min-w-0 text-[13px] break-words" data-testid={testId}>
        {children}
      </dd>
    </div>
  );
}

/** How to turn the schedule on, when BACKUP_DIR is unset. */
function HowToSchedule() {
  return (
    <div className="rounded-md border border-border bg-subtle p-3 text-[13px]" data-testid="backup-unconfigured">
      <p className="font-medium">Scheduled backups are off.</p>
      <p className="mt-1 text-fg-muted">
        Set <code>BACKUP_DIR</code> (a folder, ideally on another disk) and restart Errata; optionally <code>BACKUP_EVERY</code> (default{" "}
        <code>24h</code>; e.g. <code>6h</code>, <code>7d</code>) and <code>BACKUP_KEEP</code> (archives kept, default 7). Or run{" "}
        <code>errata backup /path/to/folder</code> from cron. See the README&apos;s “Backups” section for restoring.
      </p>
    </div>
  );
}

function RunsTable({ runs, now }: { runs: BackupRun[]; now: number }) {
  if (runs.length === 0) return <p className="text-[13px] text-fg-muted">No backup has run yet.</p>;
  return (
    <div className="relative overflow-x-auto rounded-md border border-border">
      <table className="w-full min-w-[520px] border-collapse text-[13px]" data-testid="backup-runs">
        <caption className="sr-only">Latest backup runs</caption>
        <thead>
          <tr className="h-8 border-b border-border bg-subtle text-left text-[11px] tracking-wide text-fg-muted uppercase">
            <th scope="col" className="px-3 font-medium">
              Started
            </th>
            <th scope="col" className="px-3 font-medium">
              How
            </th>
            <th scope="col" className="px-3 font-medium">
              Result
            </th>
            <th scope="col" className="px-3 text-right font-medium">
              Size
            </th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr key={r.id} className="border-b border-border align-top last:border-b-0">
              <td className="px-3 py-1.5 whitespace-nowrap">
                <TimeAgo ms={r.startedAt} now={now} />
              </td>
              <td className="px-3 py-1.5">{r.trigger}</td>
              <td className={`px-3 py-1.5 ${r.ok === false ? "text-danger" : ""}`}>
                {r.ok === null ? "running" : r.ok ? "ok" : `failed: ${r.error ?? "unknown error"}`}
              </td>
              <td className="px-3 py-1.5 text-right whitespace-nowrap tabular-nums">{sizeText(r.size)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function BackupStatusView({ status, now }: { status: BackupStatus; now: number }) {
  const { schedule, lastSuccess, lastFailure } = status;
  const failedSince = lastFailure && (!lastSuccess || lastFailure.startedAt > lastSuccess.startedAt);
  return (
    <div className="flex flex-col gap-4">
      {schedule ? null : <HowToSchedule />}
      <dl className="rounded-md border border-border px-3" data-testid="backup-facts">
        <Fact label="Last success" testId="backup-last-success">
          {lastSuccess ? (
            <>
              <TimeAgo ms={lastSuccess.finishedAt ?? lastSuccess.startedAt} now={now} /> · {sizeText(lastSuccess.size)} ·{" "}
              <code className="break-all">{lastSuccess.path}</code>
            </>
          ) : (
            <span className="text-fg-muted">none yet</span>
          )}
        </Fact>
        <Fact label="Schedule" testId="backup-schedule">
          {schedule ? (
            <>
              every {schedule.every} into <code className="break-all">{schedule.dir}</code>, keeping the newest {schedule.keep}
            </>
          ) : (
            <span className="text-fg-muted">not configured</span>
          )}
        </Fact>
        <Fact label="Last error" testId="backup-last-error">
          {lastFailure ? (
            <span className={failedSince ? "text-danger" : "text-fg-muted"}>
              {absoluteTime(lastFailure.startedAt)}: {lastFailure.error ?? "unknown error"}
              {failedSince ? "" : " (a later backup succeeded)"}
            </span>
          ) : (
            <span className="text-fg-muted">none</span>
          )}
        </Fact>
        <Fact label="Database">
          {status.dialect === "sqlite"
            ? "SQLite: the archive holds the database, the queue file and the blob folder"
            : "PostgreSQL: the archive holds a pg_dump of the database (blobs included)"}
        </Fact>
      </dl>
      <RunsTable runs={status.recent} now={now} />
    </div>
  );
}
