"use client";

import { useActionState, useEffect, useRef } from "react";
import { SCOPE_GROUPS } from "@/core/token-scopes";
import { CopyButton } from "../kit/copy-button";
import { type FormResult, FormStatus, IDLE, submitWithoutReset } from "../kit/settings-form";

type SecretResult = FormResult & { secret?: string };
type SecretAction = (prev: SecretResult, data: FormData) => Promise<SecretResult>;

function Hidden({ values }: { values: Record<string, string> }) {
  return (
    <>
      {Object.entries(values).map(([k, v]) => (
        <input key={k} type="hidden" name={k} value={v} />
      ))}
    </>
  );
}

/** Name, scopes (none to choose: a fixed-scope token) and optional expiry; the new token's secret is shown once, to copy. */
export function NewTokenForm({
  action,
  hidden,
  scopes,
  defaults,
  idPrefix,
}: {
  action: SecretAction;
  hidden: Record<string, string>;
  scopes: readonly string[];
  defaults: string[];
  idPrefix: string;
}) {
  const [state, formAction, pending] = useActionState(action, IDLE as SecretResult);
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (state.status === "ok") form.current?.reset();
  }, [state]);
  const err = state.status === "error" ? state.fields : {};
  return (
    <form
      ref={form}
      action={formAction}
      onSubmit={submitWithoutReset(formAction)}
      className="flex flex-col gap-3"
      data-testid={`${idPrefix}-form`}
    >
      <Hidden values={hidden} />
      <div className="flex flex-wrap items-end gap-2">
        <div className="flex flex-col gap-1">
          <label htmlFor={`${idPrefix}-name`} className="text-[13px] font-medium">
            Name
          </label>
          <input
            id={`${idPrefix}-name`}
            name="name"
            required
            maxLength={100}
            placeholder="e.g. CI uploads"
            className="input w-[240px] max-w-full"
          />
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor={`${idPrefix}-days`} className="text-[13px] font-medium">
            Expires after (days)
          </label>
          <input id={`${idPrefix}-days`} name="expiresInDays" inputMode="numeric" placeholder="never" className="input w-[140px]" />
        </div>
      </div>
      {scopes.length > 0 ? <ScopeChoices scopes={scopes} defaults={defaults} idPrefix={idPrefix} /> : null}
      <div className="flex flex-wrap items-center gap-3">
        <button type="submit" className="btn btn-primary" disabled={pending}>
          Create token
        </button>
        <FormStatus state={state.status === "error" ? { ...state, fields: {} } : state} />
      </div>
      {Object.entries(err).map(([f, m]) => (
        <span key={f} role="alert" className="text-[12px] text-danger">
          {f}: {m}
        </span>
      ))}
      {state.status === "ok" && state.secret ? (
        <div className="flex flex-wrap items-center gap-2 rounded-md border border-border bg-subtle px-3 py-2" data-testid="token-secret">
          <code className="min-w-0 flex-1 font-mono text-[12px] break-all">{state.secret}</code>
          <CopyButton text={state.secret} label="Copy token" />
          <span className="w-full text-[12px] text-fg-dim">Shown once: it is stored only as a hash.</span>
        </div>
      ) : null}
    </form>
  );
}

/**
 * Sentry's permission choices: one per resource (Project, Team, Release, Issue & Event,
 * Organization, Member, Alerts), "No Access" or a level; each level carries the ones before it.
 * Only the levels the role allows are offered; a resource with none is left out.
 */
function ScopeChoices({ scopes, defaults, idPrefix }: { scopes: readonly string[]; defaults: string[]; idPrefix: string }) {
  const groups = SCOPE_GROUPS.map((g) => ({ ...g, levels: g.levels.filter((l) => scopes.includes(l.scope)) })).filter(
    (g) => g.levels.length > 0,
  );
  return (
    <fieldset className="flex flex-col gap-1" data-testid="scope-choices">
      <legend className="mb-1 text-[13px] font-medium">Permissions</legend>
      <div className="grid grid-cols-1 gap-x-6 gap-y-1.5 sm:grid-cols-2">
        {groups.map((g) => {
          const id = `${idPrefix}-scope-${g.resource.replace(/\W+/g, "-").toLowerCase()}`;
          const chosen = [...g.levels].reverse().find((l) => defaults.includes(l.scope));
          return (
            <div key={g.resource} className="flex flex-wrap items-center gap-x-2 gap-y-0.5">
              <label htmlFor={id} className="w-[110px] shrink-0 text-[13px]">
                {g.resource}
              </label>
              <select id={id} name="scopes" defaultValue={chosen?.scope ?? ""} className="input w-[150px]" title={g.what}>
                <option value="">No Access</option>
                {g.levels.map((l) => (
                  <option key={l.scope} value={l.scope}>
                    {l.label}
                  </option>
                ))}
              </select>
              <span className="w-full min-w-0 text-[12px] text-fg-dim sm:pl-[118px]">{g.what}</span>
            </div>
          );
        })}
      </div>
    </fieldset>
  );
}

export function RevokeTokenButton({
  action,
  hidden,
  name,
}: {
  action: (prev: FormResult, data: FormData) => Promise<FormResult>;
  hidden: Record<string, string>;
  name: string;
}) {
  const [state, formAction, pending] = useActionState(action, IDLE);
  return (
    <form action={formAction} className="flex items-center gap-2">
      <Hidden values={hidden} />
      <button type="submit" className="btn btn-sm text-danger" disabled={pending} aria-label={`Revoke token ${name}`}>
        Revoke
      </button>
      <FormStatus state={state} />
    </form>
  );
}
