"use client";
/**
 * Create or edit a cron monitor (owners and admins; the page shows it only to them and the service
 * checks again): name, slug, a crontab or an interval with the next runs previewed in the monitor's
 * timezone (croner, as the server evaluates it), margin, max runtime, thresholds, and the
 * `sentry-cli monitors run` line that reports to it.
 */
import { Cron } from "croner";
import { type ReactNode, useActionState, useMemo, useState } from "react";
import { type MonitorConfig, type ScheduleUnit, slugify as slugOf } from "@/core/monitors/checkin";
import { CodeBlock } from "../kit/code-block";
import { countOf } from "../kit/format";
import { type FormAction, FormStatus, IDLE, submitWithoutReset } from "../kit/settings-form";
import { monitorRunLine } from "./run-line";

const UNITS: ScheduleUnit[] = ["minute", "hour", "day", "week", "month", "year"];
const UNIT_MS: Partial<Record<ScheduleUnit, number>> = { minute: 60_000, hour: 3_600_000, day: 86_400_000, week: 604_800_000 };
const PREVIEW_RUNS = 5;

/** The next runs of a schedule from now, or why there are none. */
export function previewRuns(
  type: "crontab" | "interval",
  crontab: string,
  every: number,
  unit: ScheduleUnit,
  timezone: string,
  now: number,
): { runs: number[] } | { error: string } {
  if (!validZone(timezone)) return { error: `“${timezone}” is not a timezone (e.g. UTC, Europe/Paris).` };
  if (type === "interval") {
    if (!Number.isInteger(every) || every < 1) return { error: "Use a whole number of at least 1." };
    const step = UNIT_MS[unit];
    const runs: number[] = [];
    let t = now;
    for (let i = 0; i < PREVIEW_RUNS; i++) {
      if (step) t += every * step;
      else {
        const d = new Date(t);
        if (unit === "month") d.setUTCMonth(d.getUTCMonth() + every);
        else d.setUTCFullYear(d.getUTCFullYear() + every);
        t = d.getTime();
      }
      runs.push(t);
    }
    return { runs };
  }
  const expr = crontab.trim();
  if (!expr) return { error: "Enter a crontab, e.g. 0 * * * * (every hour)." };
  if (expr.split(/\s+/).length !== 5 && !expr.startsWith("@"))
    return { error: "A crontab has five fields: minute hour day month weekday." };
  try {
    const runs = new Cron(expr, { timezone, paused: true }).nextRuns(PREVIEW_RUNS, new Date(now)).map((d) => d.getTime());
    return runs.length ? { runs } : { error: "This crontab never runs." };
  } catch {
    return { error: "Not a valid crontab." };
  }
}

function validZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-GB", { timeZone: tz });
    return tz.length > 0;
  } catch {
    return false;
  }
}

function runText(ms: number, timezone: string): string {
  return new Intl.DateTimeFormat("en-GB", {
    timeZone: timezone,
    weekday: "short",
    day: "numeric",
    month: "short",
    hour: "2-digit",
    minute: "2-digit",
  }).format(ms);
}

const FIELDS = [
  "project",
  "name",
  "slug",
  "schedule",
  "timezone",
  "checkinMargin",
  "maxRuntime",
  "failureIssueThreshold",
  "recoveryThreshold",
] as const;

function Field({ id, label, error, hint, children }: { id: string; label: string; error?: string; hint?: string; children: ReactNode }) {
  return (
    <div className="flex min-w-0 flex-col gap-1">
      <label htmlFor={id} className="text-[12px] font-medium">
        {label}
      </label>
      {children}
      {hint ? <p className="text-[12px] text-fg-dim">{hint}</p> : null}
      {error ? (
        <p id={`${id}-error`} className="text-[12px] text-danger" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}

export function MonitorForm({
  action,
  org,
  projects,
  project,
  monitor,
  testId,
}: {
  action: FormAction;
  org: string;
  /** create: the projects to choose from */
  projects?: Array<{ slug: string; name: string }>;
  project?: string;
  /** edit: the monitor as it is */
  monitor?: { slug: string; name: string; config: MonitorConfig };
  testId: string;
}) {
  const [state, formAction, pending] = useActionState(action, IDLE);
  const c = monitor?.config;
  const [type, setType] = useState<"crontab" | "interval">(c?.schedule.type ?? "crontab");
  const [crontab, setCrontab] = useState(c?.schedule.type === "crontab" ? c.schedule.value : "0 * * * *");
  const [every, setEvery] = useState(c?.schedule.type === "interval" ? String(c.schedule.value) : "10");
  const [unit, setUnit] = useState<ScheduleUnit>(c?.schedule.type === "interval" ? c.schedule.unit : "minute");
  const [timezone, setTimezone] = useState(c?.timezone ?? "UTC");
  const [name, setName] = useState(monitor?.name ?? "");
  const [slug, setSlug] = useState(monitor?.slug ?? "");
  const [environment, setEnvironment] = useState("production");
  // The preview is computed in the browser; "now" is taken when the inputs change.
  const preview = useMemo(
    () => previewRuns(type, crontab, Number(every), unit, timezone.trim(), Date.now()),
    [type, crontab, every, unit, timezone],
  );
  const err = (f: (typeof FIELDS)[number]) => (state.status === "error" ? state.fields[f] : undefined);
  const other = state.status === "error" ? Object.entries(state.fields).filter(([f]) => !(FIELDS as readonly string[]).includes(f)) : [];
  const shownSlug = slug.trim() || (monitor ? monitor.slug : slugOf(name));
  const p = `${testId}-`;
  const input = "input h-[30px]";
  return (
    <form
      action={formAction}
      onSubmit={submitWithoutReset(formAction)}
      className="flex flex-col gap-3 rounded-md border border-border px-4 py-3"
      data-testid={testId}
    >
      <input type="hidden" name="org" value={org} />
      {monitor ? <input type="hidden" name="slug" value={monitor.slug} /> : null}
      <fieldset disabled={pending} className="flex min-w-0 flex-col gap-3">
        <legend className="sr-only">{monitor ? "Edit monitor" : "New cron monitor"}</legend>
        <div className="grid gap-3 sm:grid-cols-[minmax(0,1fr)_minmax(0,1fr)_minmax(0,1fr)]">
          <Field id={`${p}name`} label="Name" error={err("name")}>
            <input
              id={`${p}name`}
              name="name"
              required
              maxLength={128}
              placeholder="Nightly backup"
              className={input}
              value={name}
              onChange={(e) => setName(e.target.value)}
            />
          </Field>
          {monitor ? (
            <Field id={`${p}slug`} label="Slug" hint="Check-ins name the monitor by its slug; it does not change.">
              <input id={`${p}slug`} value={monitor.slug} readOnly className={`${input} font-mono`} />
            </Field>
          ) : (
            <Field id={`${p}slug`} label="Slug (optional)" error={err("slug")} hint={`Check-ins name it: ${shownSlug || "from the name"}`}>
              <input
                id={`${p}slug`}
                name="newSlug"
                maxLength={100}
                placeholder={slugOf(name) || "nightly-backup"}
                className={`${input} font-mono`}
                value={slug}
                onChange={(e) => setSlug(e.target.value)}
              />
            </Field>
          )}
          {projects ? (
            <Field id={`${p}project`} label="Project" error={err("project")}>
              <select id={`${p}project`} name="project" defaultValue={project || projects[0]?.slug} className={input}>
                {projects.map((pr) => (
                  <option key={pr.slug} value={pr.slug}>
                    {pr.name}
                  </option>
                ))}
              </select>
            </Field>
          ) : null}
        </div>

        <fieldset className="flex min-w-0 flex-col gap-2">
          <legend className="mb-1 text-[12px] font-medium">Schedule</legend>
          <div className="flex flex-wrap items-center gap-4">
            <label className="flex items-center gap-2">
              <input type="radio" name="scheduleType" value="crontab" checked={type === "crontab"} onChange={() => setType("crontab")} />
              Crontab
            </label>
            <label className="flex items-center gap-2">
              <input type="radio" name="scheduleType" value="interval" checked={type === "interval"} onChange={() => setType("interval")} />
              Interval
            </label>
          </div>
          {type === "crontab" ? (
            <Field id={`${p}crontab`} label="Crontab" error={err("schedule")} hint="minute hour day-of-month month day-of-week">
              <input
                id={`${p}crontab`}
                name="crontab"
                required
                spellCheck={false}
                className={`${input} max-w-[260px] font-mono`}
                value={crontab}
                onChange={(e) => setCrontab(e.target.value)}
              />
            </Field>
          ) : (
            <div className="flex flex-wrap items-end gap-2">
              <Field id={`${p}every`} label="Every" error={err("schedule")}>
                <input
                  id={`${p}every`}
                  name="intervalValue"
                  type="number"
                  min={1}
                  max={10000}
                  required
                  className={`${input} w-[96px]`}
                  value={every}
                  onChange={(e) => setEvery(e.target.value)}
                />
              </Field>
              <Field id={`${p}unit`} label="Unit">
                <select
                  id={`${p}unit`}
                  name="intervalUnit"
                  className={input}
                  value={unit}
                  onChange={(e) => setUnit(e.target.value as ScheduleUnit)}
                >
                  {UNITS.map((u) => (
                    <option key={u} value={u}>
                      {u}s
                    </option>
                  ))}
                </select>
              </Field>
            </div>
          )}
          <Field
            id={`${p}timezone`}
            label="Timezone"
            error={err("timezone")}
            hint="IANA name; the crontab is evaluated in it (DST included)."
          >
            <input
              id={`${p}timezone`}
              name="timezone"
              required
              list={`${p}zones`}
              spellCheck={false}
              className={`${input} max-w-[260px]`}
              value={timezone}
              onChange={(e) => setTimezone(e.target.value)}
            />
            <datalist id={`${p}zones`}>
              {ZONES.map((z) => (
                <option key={z} value={z} />
              ))}
            </datalist>
          </Field>
          <div className="rounded-md bg-subtle px-3 py-2 text-[12.5px]" aria-live="polite" data-testid={`${testId}-preview`}>
            {"error" in preview ? (
              <span className="text-danger">{preview.error}</span>
            ) : (
              <>
                <span className="text-fg-muted">
                  {type === "interval"
                    ? `Expected every ${countOf(Number(every), unit)} after each check-in; from now:`
                    : `Next runs (${timezone.trim()}):`}
                </span>
                <ol className="mt-1 flex flex-wrap gap-x-4 gap-y-0.5 font-mono text-[12px]">
                  {preview.runs.map((t) => (
                    <li key={t}>{runText(t, timezone.trim())}</li>
                  ))}
                </ol>
              </>
            )}
          </div>
        </fieldset>

        <div className="flex flex-wrap gap-3">
          <Field id={`${p}margin`} label="Check-in margin (min)" error={err("checkinMargin")} hint="Late by more: missed">
            <NumberInput id={`${p}margin`} name="checkinMargin" value={c?.checkinMargin ?? 1} min={0} className={input} />
          </Field>
          <Field id={`${p}runtime`} label="Max runtime (min)" error={err("maxRuntime")} hint="Running longer: timed out">
            <NumberInput id={`${p}runtime`} name="maxRuntime" value={c?.maxRuntime ?? 30} min={1} className={input} />
          </Field>
          <Field id={`${p}failures`} label="Issue after (failures)" error={err("failureIssueThreshold")} hint="In a row">
            <NumberInput id={`${p}failures`} name="failureIssueThreshold" value={c?.failureIssueThreshold ?? 1} min={1} className={input} />
          </Field>
          <Field id={`${p}recovery`} label="Resolve after (successes)" error={err("recoveryThreshold")} hint="In a row">
            <NumberInput id={`${p}recovery`} name="recoveryThreshold" value={c?.recoveryThreshold ?? 1} min={1} className={input} />
          </Field>
        </div>

        <Field
          id={`${p}env`}
          label="Environment (for the command below)"
          hint="Each environment's state comes from the check-ins that name it; nothing is stored with the monitor."
        >
          <input
            id={`${p}env`}
            spellCheck={false}
            className={`${input} max-w-[200px] font-mono`}
            value={environment}
            onChange={(e) => setEnvironment(e.target.value)}
          />
        </Field>
        <div>
          <p className="mb-1 text-[12px] font-medium">Report a job's runs to it</p>
          <CodeBlock code={monitorRunLine(shownSlug, environment)} copyLabel="Copy command" />
        </div>
      </fieldset>
      <div className="flex flex-wrap items-center gap-3">
        <button type="submit" className="btn btn-primary" disabled={pending} aria-busy={pending || undefined}>
          {pending ? <span className="spinner" aria-hidden="true" /> : null}
          {monitor ? "Save monitor" : "Create monitor"}
        </button>
        <FormStatus state={state} />
        {other.length > 0 ? (
          <span role="alert" className="text-[12.5px] text-danger">
            {other.map(([, m]) => m).join(" · ")}
          </span>
        ) : null}
      </div>
    </form>
  );
}

function NumberInput({ id, name, value, min, className }: { id: string; name: string; value: number; min: number; className: string }) {
  return (
    <input id={id} name={name} type="number" min={min} max={10000} required defaultValue={value} className={`${className} w-[120px]`} />
  );
}

const ZONES = [
  "UTC",
  "Europe/London",
  "Europe/Paris",
  "Europe/Berlin",
  "America/New_York",
  "America/Chicago",
  "America/Denver",
  "America/Los_Angeles",
  "America/Sao_Paulo",
  "Asia/Kolkata",
  "Asia/Singapore",
  "Asia/Tokyo",
  "Australia/Sydney",
];
