"use client";

import { useActionState, useState } from "react";
import { type FormAction, FormStatus, IDLE, submitWithoutReset } from "../kit/settings-form";
import { PLATFORMS } from "./platforms";

/** Name and platform of a new project; the platform picks the setup guide shown next. */
export function ProjectCreateForm({
  action,
  org,
  then,
  teams = [],
}: {
  action: FormAction;
  org: string;
  then: "onboarding" | "settings";
  /** the org's teams, oldest (the default) first; none: the project is visible to every member */
  teams?: Array<{ slug: string; name: string }>;
}) {
  const [state, formAction, pending] = useActionState(action, IDLE);
  const [platform, setPlatform] = useState("javascript-nextjs");
  const errors = state.status === "error" ? state.fields : {};
  return (
    <form action={formAction} onSubmit={submitWithoutReset(formAction)} className="flex flex-col gap-5" data-testid="create-project-form">
      <input type="hidden" name="org" value={org} />
      <input type="hidden" name="then" value={then} />
      <div className="flex flex-col gap-1">
        <label htmlFor="project-name" className="text-[13px] font-medium">
          Project name
        </label>
        <input
          id="project-name"
          name="name"
          required
          maxLength={100}
          autoComplete="off"
          placeholder="e.g. web"
          className="input max-w-[360px]"
          aria-invalid={errors.name ? true : undefined}
          aria-describedby={errors.name ? "project-name-error" : "project-name-hint"}
        />
        {errors.name ? (
          <p id="project-name-error" className="text-[12px] text-danger">
            {errors.name}
          </p>
        ) : (
          <p id="project-name-hint" className="text-[12px] text-fg-dim">
            One project per app or service; its slug goes into issue ids (WEB-12).
          </p>
        )}
      </div>
      <fieldset>
        <legend className="mb-2 text-[13px] font-medium">Platform</legend>
        <div className="grid grid-cols-2 gap-2 sm:grid-cols-3">
          {PLATFORMS.map((p) => (
            <label
              key={p.id}
              className={`flex cursor-pointer flex-col rounded-md border px-3 py-2 hover:bg-hover has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-fg-muted ${
                platform === p.id ? "border-fg" : "border-border"
              }`}
            >
              <input
                type="radio"
                name="platform"
                value={p.id}
                checked={platform === p.id}
                onChange={() => setPlatform(p.id)}
                className="sr-only"
              />
              <span className="font-medium">{p.label}</span>
              <span className="font-mono text-[11.5px] text-fg-dim">{p.sdk}</span>
            </label>
          ))}
        </div>
        {errors.platform ? <p className="mt-1 text-[12px] text-danger">{errors.platform}</p> : null}
      </fieldset>
      {teams.length > 0 ? (
        <fieldset data-testid="project-teams">
          <legend className="mb-1 text-[13px] font-medium">Teams</legend>
          <p className="mb-2 text-[12px] text-fg-dim">Members see the project through these teams; admins and owners see every project.</p>
          <input type="hidden" name="teamsChosen" value="1" />
          <div className="flex flex-wrap gap-x-4 gap-y-1.5">
            {teams.map((t, i) => (
              <label key={t.slug} className="flex items-center gap-2">
                <input type="checkbox" name="teams" value={t.slug} defaultChecked={i === 0} /> {t.name}
              </label>
            ))}
          </div>
          {errors.teams ? <p className="mt-1 text-[12px] text-danger">{errors.teams}</p> : null}
        </fieldset>
      ) : null}
      <div className="flex flex-wrap items-center gap-3">
        <button type="submit" className="btn btn-primary h-[34px]" disabled={pending} aria-busy={pending || undefined}>
          {pending ? <span className="spinner" aria-hidden="true" /> : null}
          Create project
        </button>
        <FormStatus state={state} />
      </div>
    </form>
  );
}
