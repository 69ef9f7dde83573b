"use client";

import { useActionState, useState } from "react";
import { type FormAction, FormStatus, IDLE, submitWithoutReset, useResetOnSuccess } from "../kit/settings-form";

function Hidden({ values }: { values: Record<string, string> }) {
  return (
    <>
      {Object.entries(values).map(([k, v]) => (
        <input key={k} type="hidden" name={k} value={v} />
      ))}
    </>
  );
}

export function NewTeamForm({ action, org }: { action: FormAction; org: string }) {
  const [state, formAction, pending] = useActionState(action, IDLE);
  const form = useResetOnSuccess(state);
  return (
    <form ref={form} action={formAction} onSubmit={submitWithoutReset(formAction)} className="flex flex-wrap items-end gap-2">
      <Hidden values={{ org }} />
      <div className="flex flex-col gap-1">
        <label htmlFor="team-name" className="text-[13px] font-medium">
          Team name
        </label>
        <input id="team-name" name="name" required maxLength={100} placeholder="e.g. Frontend" className="input w-[260px] max-w-full" />
      </div>
      <button type="submit" className="btn btn-primary" disabled={pending}>
        Create team
      </button>
      <FormStatus state={state} />
      {state.status === "error" && state.fields.name ? (
        <span role="alert" className="w-full text-[12px] text-danger">
          Name: {state.fields.name}
        </span>
      ) : null}
    </form>
  );
}

/** Adds a member or project to a team (a select of those not in it yet). */
export function TeamAddForm({
  action,
  org,
  team,
  kind,
  options,
}: {
  action: FormAction;
  org: string;
  team: string;
  kind: "member" | "project";
  options: Array<{ value: string; label: string }>;
}) {
  const [state, formAction, pending] = useActionState(action, IDLE);
  const id = `add-${kind}-${team}`;
  if (options.length === 0) return null;
  return (
    <form action={formAction} className="flex flex-wrap items-center gap-2">
      <Hidden values={{ org, team, kind, op: "add" }} />
      <label htmlFor={id} className="sr-only">
        Add a {kind} to {team}
      </label>
      <select id={id} name="value" className="input h-[28px] w-[220px] max-w-full">
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <button type="submit" className="btn btn-sm" disabled={pending}>
        Add {kind}
      </button>
      <FormStatus state={state} />
    </form>
  );
}

/** Takes one member or project out of a team (not destructive: it can be added back). */
export function TeamRemoveButton({
  action,
  org,
  team,
  kind,
  value,
  label,
}: {
  action: FormAction;
  org: string;
  team: string;
  kind: "member" | "project";
  value: string;
  label: string;
}) {
  const [, formAction, pending] = useActionState(action, IDLE);
  return (
    <form action={formAction}>
      <Hidden values={{ org, team, kind, op: "remove", value }} />
      <button type="submit" className="btn btn-sm btn-ghost" disabled={pending} aria-label={`Remove ${label} from ${team}`}>
        Remove
      </button>
    </form>
  );
}

export function DeleteTeamForm({ action, org, teams }: { action: FormAction; org: string; teams: string[] }) {
  const [state, formAction, pending] = useActionState(action, IDLE);
  const [team, setTeam] = useState(teams[0] ?? "");
  const [confirm, setConfirm] = useState("");
  // The deleted team is gone from the list: choose the first of those left and clear the confirmation.
  const form = useResetOnSuccess(state, () => {
    setConfirm("");
    setTeam(teams.find((t) => t !== team) ?? "");
  });
  return (
    <form ref={form} action={formAction} onSubmit={submitWithoutReset(formAction)} className="flex flex-wrap items-end gap-2">
      <Hidden values={{ org }} />
      <div className="flex flex-col gap-1">
        <label htmlFor="delete-team" className="text-[13px] font-medium">
          Team
        </label>
        <select id="delete-team" name="team" className="input w-[200px]" value={team} onChange={(e) => setTeam(e.target.value)}>
          {teams.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
      </div>
      <div className="flex flex-col gap-1">
        <label htmlFor="delete-team-confirm" className="text-[13px] font-medium">
          Type its slug to confirm
        </label>
        <input
          id="delete-team-confirm"
          name="confirm"
          autoComplete="off"
          className="input w-[200px]"
          value={confirm}
          onChange={(e) => setConfirm(e.target.value)}
          placeholder={team}
        />
      </div>
      <button type="submit" className="btn text-danger" disabled={pending || confirm.trim() !== team}>
        Delete team
      </button>
      <FormStatus state={state.status === "error" ? { ...state, fields: {} } : state} />
    </form>
  );
}
