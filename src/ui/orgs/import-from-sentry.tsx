"use client";

import { useActionState, useEffect, useMemo, useState } from "react";
import type { ImportReportEntry } from "@/core/import/sentry";
import type { ImportRunView } from "@/server/import/import-runs";
import { ScrollRegion } from "../kit/scroll-region";

export type ImportStartState =
  | { status: "idle" }
  | { status: "error"; message: string; fields: Record<string, string>; at: number }
  | { status: "started"; run: ImportRunView; at: number };

export type ImportRunState = { ok: true; run: ImportRunView } | { ok: false; message: string };

type Start = (prev: ImportStartState, data: FormData) => Promise<ImportStartState>;
type Poll = (org: string, runId: string) => Promise<ImportRunState>;

const POLL_MS = 500;
const ACTIONS = ["created", "updated", "unchanged", "skipped"] as const;

/** The import form, the running import's progress bar (polled from its run row) and its report. */
export function ImportFromSentry({ org, start, poll, last }: { org: string; start: Start; poll: Poll; last: ImportRunView | null }) {
  const [state, formAction, pending] = useActionState(start, { status: "idle" } as ImportStartState);
  const [run, setRun] = useState<ImportRunView | null>(last);
  const [pollError, setPollError] = useState<string | null>(null);

  useEffect(() => {
    if (state.status === "started") setRun(state.run);
  }, [state]);

  // Poll while the run is running; each answer replaces the view.
  const runningId = run?.status === "running" ? run.id : null;
  useEffect(() => {
    if (!runningId) return;
    let stopped = false;
    const tick = async () => {
      const r = await poll(org, runningId);
      if (stopped) return;
      if (!r.ok) {
        setPollError(r.message);
        return;
      }
      setRun(r.run);
      if (r.run.status === "running") setTimeout(tick, POLL_MS);
    };
    const t = setTimeout(tick, POLL_MS);
    return () => {
      stopped = true;
      clearTimeout(t);
    };
  }, [runningId, org, poll]);

  const fields = state.status === "error" ? state.fields : {};
  const running = run?.status === "running";
  return (
    <div className="flex flex-col gap-5">
      <form action={formAction} className="flex flex-col gap-3" data-testid="import-form">
        <input type="hidden" name="org" value={org} />
        <Field label="Sentry URL" name="url" error={fields.url} hint="e.g. https://sentry.io or https://sentry.example.com">
          <input
            id="import-url"
            name="url"
            type="url"
            required
            className="input font-mono"
            placeholder="https://sentry.io"
            spellCheck={false}
          />
        </Field>
        <Field
          label="Auth token"
          name="token"
          error={fields.token}
          hint="org:read, project:read, team:read, member:read, project:releases (and event:read for issues). Used for this run only."
        >
          <input
            id="import-token"
            name="token"
            type="password"
            required
            autoComplete="off"
            className="input font-mono"
            spellCheck={false}
          />
        </Field>
        <Field label="Organization slug on Sentry" name="sourceOrg" error={fields.org}>
          <input id="import-sourceOrg" name="sourceOrg" required className="input w-[260px] max-w-full font-mono" spellCheck={false} />
        </Field>
        <fieldset className="flex flex-col gap-2 text-[13px]">
          <legend className="sr-only">Options</legend>
          <label className="flex items-center gap-2">
            <input type="checkbox" name="issues" />
            <span>Also issues, with their latest events (up to 10 each)</span>
          </label>
          <label className="ml-6 flex items-center gap-2">
            <span>last seen within</span>
            <input name="since" defaultValue="30d" className="input w-[72px] py-0.5 font-mono" spellCheck={false} />
            <span className="text-[12px] text-fg-muted">30d, 12h, 2w</span>
          </label>
          {fields.since ? <span className="text-[12px] text-danger">{fields.since}</span> : null}
          <label className="flex items-center gap-2">
            <input type="checkbox" name="dryRun" />
            <span>Dry run: report what would change, write nothing</span>
          </label>
        </fieldset>
        <div className="flex items-center gap-3">
          <button type="submit" className="btn btn-primary" disabled={pending || running} aria-busy={pending || undefined}>
            {running ? "Importing…" : "Import"}
          </button>
          {state.status === "error" ? (
            <p role="alert" className="text-[13px] text-danger" data-testid="import-error">
              {state.message}
            </p>
          ) : null}
        </div>
      </form>
      {run ? <RunView run={run} /> : null}
      {pollError ? (
        <p role="alert" className="text-[13px] text-danger">
          {pollError}
        </p>
      ) : null}
    </div>
  );
}

function Field({
  label,
  name,
  error,
  hint,
  children,
}: {
  label: string;
  name: string;
  error?: string;
  hint?: string;
  children: React.ReactNode;
}) {
  return (
    <div className="flex max-w-[560px] flex-col gap-1 text-[13px]" data-field={name}>
      <label htmlFor={`import-${name}`} className="font-medium">
        {label}
      </label>
      {children}
      {hint ? <span className="text-[12px] text-fg-muted">{hint}</span> : null}
      {error ? <span className="text-[12px] text-danger">{error}</span> : null}
    </div>
  );
}

function RunView({ run }: { run: ImportRunView }) {
  const { done, total, step } = run.progress;
  const pct = total > 0 ? Math.min(100, Math.round((done / total) * 100)) : 0;
  return (
    <section
      aria-label="Import run"
      className="flex flex-col gap-3 border-t border-border pt-4"
      data-testid="import-run"
      data-status={run.status}
      data-run={run.id}
    >
      <div className="flex flex-col gap-1.5">
        <div className="flex items-baseline justify-between gap-3 text-[13px]">
          <span className="font-medium">{statusLabel(run)}</span>
          <span className="font-mono text-fg-muted tabular-nums" data-testid="import-count">
            {total > 0 ? `${done} / ${total}` : ""}
          </span>
        </div>
        <div
          role="progressbar"
          aria-label="Import progress"
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={run.status === "done" ? 100 : pct}
          className="h-2 w-full overflow-hidden rounded bg-muted"
          data-testid="import-progress"
        >
          <div
            className={`h-full rounded transition-[width] ${run.status === "failed" ? "bg-danger" : "bg-fg-muted"}`}
            style={{ width: `${run.status === "done" ? 100 : pct}%` }}
          />
        </div>
        {run.status === "running" ? (
          <p className="truncate text-[12px] text-fg-muted" aria-live="polite" data-testid="import-step">
            {step}
          </p>
        ) : null}
      </div>
      {run.status === "failed" && run.error ? (
        <p role="alert" className="text-[13px] text-danger" data-testid="import-failure">
          {run.error.message}
        </p>
      ) : null}
      {run.status === "interrupted" ? (
        <p className="text-[13px]">The server stopped while this import ran. Start it again: it resumes where it was.</p>
      ) : null}
      {run.report ? <Report entries={run.report.entries} dryRun={run.report.dryRun} /> : null}
    </section>
  );
}

function statusLabel(run: ImportRunView): string {
  if (run.status === "running") return "Importing…";
  if (run.status === "failed") return "The import stopped: nothing after the last finished step was written";
  if (run.status === "interrupted") return "Interrupted";
  return run.report?.dryRun ? "Dry run finished: nothing was written" : "Import finished";
}

function Report({ entries, dryRun }: { entries: ImportReportEntry[]; dryRun: boolean }) {
  const [only, setOnly] = useState<(typeof ACTIONS)[number] | "all">("all");
  const counts = useMemo(() => {
    const c = { created: 0, updated: 0, unchanged: 0, skipped: 0 };
    for (const e of entries) c[e.action]++;
    return c;
  }, [entries]);
  const shown = only === "all" ? entries : entries.filter((e) => e.action === only);
  return (
    <div className="flex flex-col gap-2" data-testid="import-report">
      <fieldset className="flex flex-wrap gap-1.5">
        <legend className="sr-only">Show</legend>
        {(["all", ...ACTIONS] as const).map((a) => (
          <button
            key={a}
            type="button"
            aria-pressed={only === a}
            onClick={() => setOnly(a)}
            className={`rounded-md border px-2 py-0.5 text-[12px] ${only === a ? "border-border-strong bg-muted font-semibold" : "border-border text-fg-muted hover:bg-hover"}`}
            data-testid={`import-filter-${a}`}
          >
            {a === "all" ? `all ${entries.length}` : `${dryRun && a !== "skipped" && a !== "unchanged" ? `would be ${a}` : a} ${counts[a]}`}
          </button>
        ))}
      </fieldset>
      <ScrollRegion label="Report" className="max-h-[480px] overflow-y-auto rounded-md border border-border">
        <table className="w-full border-collapse text-[12px]">
          <thead className="sticky top-0 bg-subtle text-left text-fg-muted">
            <tr>
              <th className="px-2 py-1 font-medium">What</th>
              <th className="px-2 py-1 font-medium">Name</th>
              <th className="px-2 py-1 font-medium">Result</th>
              <th className="px-2 py-1 font-medium">Why / note</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((e) => (
              <tr
                key={`${e.kind}\u0000${e.name}\u0000${e.action}\u0000${e.note ?? ""}`}
                className="border-t border-border align-top"
                data-action={e.action}
              >
                <td className="px-2 py-1 whitespace-nowrap text-fg-muted">{e.kind.replace("_", " ")}</td>
                <td className="px-2 py-1 font-mono break-all">{e.name}</td>
                <td className={`px-2 py-1 whitespace-nowrap ${e.action === "skipped" ? "font-semibold text-danger" : ""}`}>{e.action}</td>
                <td className="px-2 py-1 text-fg-muted">{e.note ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollRegion>
    </div>
  );
}
