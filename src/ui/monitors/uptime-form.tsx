"use client";
/**
 * The create form of an uptime check (owners and admins; the page shows it only to them and the
 * service checks again), and the refresh that waits for a new check's first result.
 */
import { useRouter } from "next/navigation";
import { type ReactNode, startTransition, useActionState, useEffect } from "react";
import { type FormAction, FormStatus, IDLE, submitWithoutReset } from "../kit/settings-form";

/** The service's field names (`config.*` as the REST API takes them) and where each is shown. */
const FIELDS = [
  "project",
  "name",
  "config.url",
  "config.method",
  "config.intervalSeconds",
  "config.timeoutMs",
  "config.statusMin",
  "config.headers",
  "config.failureThreshold",
  "config.recoveryThreshold",
] as const;

const sentence = (s: string) => {
  const t = s.trim();
  const first = t ? t[0].toUpperCase() + t.slice(1) : t;
  return /[.!?]$/.test(first) ? first : `${first}.`;
};

function Field({
  id,
  label,
  error,
  className,
  children,
}: {
  id: string;
  label: string;
  error?: string;
  className?: string;
  children: (a11y: { id: string; "aria-invalid"?: true; "aria-describedby"?: string }) => ReactNode;
}) {
  return (
    <div className={`flex min-w-0 flex-col gap-1 ${className ?? ""}`}>
      <label htmlFor={id} className="text-[12px] font-medium">
        {label}
      </label>
      {children({ id, "aria-invalid": error ? true : undefined, "aria-describedby": error ? `${id}-error` : undefined })}
      {error ? (
        <p id={`${id}-error`} className="text-[12px] text-danger">
          {sentence(error)}
        </p>
      ) : null}
    </div>
  );
}

export function UptimeCreateForm({
  action,
  org,
  projects,
  project,
}: {
  action: FormAction;
  org: string;
  projects: Array<{ slug: string; name: string }>;
  /** preselected project slug */
  project?: string;
}) {
  const [state, formAction, pending] = useActionState(action, IDLE);
  const err = (f: (typeof FIELDS)[number]) => (state.status === "error" ? state.fields[f] : undefined);
  const other = state.status === "error" ? Object.entries(state.fields).filter(([f]) => !(FIELDS as readonly string[]).includes(f)) : [];
  const statusError = err("config.statusMin");
  const input = "input h-[30px]";
  return (
    <form
      action={formAction}
      onSubmit={submitWithoutReset(formAction)}
      className="flex flex-col gap-3 rounded-md border border-border px-4 py-3"
      data-testid="uptime-create"
      aria-label="New uptime check"
    >
      <input type="hidden" name="org" value={org} />
      <fieldset disabled={pending} className="flex min-w-0 flex-col gap-3">
        <div className="grid grid-cols-1 gap-3 sm:grid-cols-[minmax(140px,200px)_minmax(120px,180px)_96px_minmax(0,1fr)]">
          <Field id="uptime-name" label="Name" error={err("name")}>
            {(a) => <input {...a} name="name" required maxLength={128} placeholder="API health" className={input} />}
          </Field>
          <Field id="uptime-project" label="Project" error={err("project")}>
            {(a) => (
              <select {...a} name="project" defaultValue={project || projects[0]?.slug} className={input}>
                {projects.map((p) => (
                  <option key={p.slug} value={p.slug}>
                    {p.name}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field id="uptime-method" label="Method" error={err("config.method")}>
            {(a) => (
              <select {...a} name="method" defaultValue="GET" className={input}>
                <option>GET</option>
                <option>HEAD</option>
                <option>POST</option>
              </select>
            )}
          </Field>
          <Field id="uptime-url" label="URL" error={err("config.url")}>
            {(a) => (
              <input
                {...a}
                name="url"
                type="url"
                required
                maxLength={2000}
                placeholder="https://example.com/health"
                className={`${input} font-mono text-[12.5px]`}
              />
            )}
          </Field>
        </div>
        <div className="flex flex-wrap items-start gap-3">
          <Field id="uptime-interval" label="Every (s)" error={err("config.intervalSeconds")} className="w-[96px]">
            {(a) => <input {...a} name="intervalSeconds" type="number" min={30} max={86400} defaultValue={60} className={input} />}
          </Field>
          <Field id="uptime-timeout" label="Timeout (ms)" error={err("config.timeoutMs")} className="w-[110px]">
            {(a) => <input {...a} name="timeoutMs" type="number" min={100} max={60000} defaultValue={10000} className={input} />}
          </Field>
          <div className="flex min-w-0 flex-col gap-1">
            <span className="text-[12px] font-medium" id="uptime-status-label">
              Expected status
            </span>
            <span className="flex items-center gap-1">
              <input
                name="statusMin"
                type="number"
                min={100}
                max={599}
                defaultValue={200}
                aria-label="Lowest expected status"
                aria-invalid={statusError ? true : undefined}
                aria-describedby={statusError ? "uptime-status-error" : undefined}
                className={`${input} w-[72px]`}
              />
              <span className="text-fg-dim">–</span>
              <input
                name="statusMax"
                type="number"
                min={100}
                max={599}
                defaultValue={399}
                aria-label="Highest expected status"
                aria-invalid={statusError ? true : undefined}
                aria-describedby={statusError ? "uptime-status-error" : undefined}
                className={`${input} w-[72px]`}
              />
            </span>
            {statusError ? (
              <p id="uptime-status-error" className="max-w-[220px] text-[12px] text-danger">
                {sentence(statusError)}
              </p>
            ) : null}
          </div>
          <Field id="uptime-keyword" label="Body contains (optional)" className="w-[200px]">
            {(a) => <input {...a} name="keyword" maxLength={200} placeholder="ok" className={input} />}
          </Field>
          <Field id="uptime-failures" label="Down after" error={err("config.failureThreshold")} className="w-[96px]">
            {(a) => (
              <input
                {...a}
                name="failureThreshold"
                type="number"
                min={1}
                max={100}
                defaultValue={1}
                title="failures in a row"
                className={input}
              />
            )}
          </Field>
          <Field id="uptime-recoveries" label="Up after" error={err("config.recoveryThreshold")} className="w-[96px]">
            {(a) => (
              <input
                {...a}
                name="recoveryThreshold"
                type="number"
                min={1}
                max={100}
                defaultValue={1}
                title="successes in a row"
                className={input}
              />
            )}
          </Field>
        </div>
        <Field id="uptime-headers" label="Request headers (optional, one “Name: value” per line)" error={err("config.headers")}>
          {(a) => (
            <textarea
              {...a}
              name="headers"
              rows={2}
              spellCheck={false}
              placeholder="Authorization: Bearer …"
              className="input h-auto max-w-[560px] py-1.5 font-mono text-[12.5px]"
            />
          )}
        </Field>
      </fieldset>
      <div className="flex flex-wrap items-center gap-3">
        <button type="submit" className="btn btn-primary" disabled={pending} aria-busy={pending || undefined}>
          {pending ? <span className="spinner" aria-hidden="true" /> : null}
          Create check
        </button>
        <FormStatus state={state} />
        {other.length > 0 ? (
          <span role="alert" className="text-[12.5px] text-danger">
            {other.map(([f, m]) => `${f}: ${m}`).join(" · ")}
          </span>
        ) : null}
      </div>
    </form>
  );
}

/** Reloads the page's server parts every `ms` while mounted (a new check waiting for its first result). */
export function RefreshWhileMounted({ ms = 2000 }: { ms?: number }) {
  const router = useRouter();
  useEffect(() => {
    const t = setInterval(() => {
      if (document.visibilityState === "visible") startTransition(() => router.refresh());
    }, ms);
    return () => clearInterval(t);
  }, [router, ms]);
  return null;
}
