"use client";
/**
 * The alert rule editor, for a new rule and for an existing one: triggers (issue triggers and the
 * release-level crash-free trigger), every filter the evaluator honours (search query, environments, levels, tag filters, issue age, in-app only),
 * channels, the per-issue throttle and the hourly cap. Posts to a Server Action; the service
 * validates (src/core/alerts/rule-input.ts) and its field errors are shown by label.
 */
import { useRef, useState } from "react";
import type { Fallthrough, RuleSettings, RuleTarget, TagFilter, TargetType } from "@/core/alerts/types";
import { type FormAction, SettingsForm } from "../kit/settings-form";
import { Field } from "../kit/settings-section";
import { FALLTHROUGH_LABELS, TARGET_LABELS } from "./target-labels";

export interface RuleFormChannel {
  id: number;
  name: string;
  kind: string;
}

const LEVELS = ["fatal", "error", "warning", "info", "debug"];
/** Rule-input.ts allows 20 tag filters. */
const MAX_TAGS = 20;

const FIELD_LABELS: Record<string, string> = {
  name: "Name",
  triggers: "Triggers",
  "triggers.frequency": "Frequency",
  // form errors name two levels: the message tells threshold from minimum sessions
  "triggers.crashFree": "Crash-free trigger",
  "filters.query": "Search filter",
  "filters.environments": "Environments",
  "filters.tags": "Tag filters",
  "filters.maxIssueAgeMinutes": "Issue age",
  channelIds: "Send to",
  targets: "Send to",
  throttleMinutes: "Throttle",
  hourlyCap: "Hourly cap",
};

/** "Issue owners (email) — when nobody matches: …", a checkbox and its fallthrough. */
function TargetRow({ prefix, type, current }: { prefix: string; type: TargetType; current: RuleTarget | undefined }) {
  const name = type === "issue_owners" ? "targetOwners" : "targetSuspects";
  return (
    <span className="flex flex-wrap items-center gap-2" data-testid={`target-${type}`}>
      <label className="flex items-center gap-2">
        <input id={`${prefix}-${name}`} type="checkbox" name={name} defaultChecked={Boolean(current)} /> {TARGET_LABELS[type]}
        <span className="text-fg-dim">(email)</span>
      </label>
      <label className="flex items-center gap-1.5 text-fg-muted">
        when nobody is found, send to
        <select name={`${name}Fallthrough`} className="input w-[210px]" defaultValue={current?.fallthrough ?? "active_members"}>
          {(Object.keys(FALLTHROUGH_LABELS) as Fallthrough[]).map((f) => (
            <option key={f} value={f}>
              {FALLTHROUGH_LABELS[f]}
            </option>
          ))}
        </select>
      </label>
    </span>
  );
}

type Unit = "minutes" | "hours" | "days";
const UNIT_MINUTES: Record<Unit, number> = { minutes: 1, hours: 60, days: 1440 };

/** A stored number of minutes as the largest whole unit the field offers (120 → 2 hours; 90 → 90 minutes). */
function splitMinutes(minutes: number | null | undefined, units: Unit[]): { value: string; unit: Unit } {
  if (minutes === null || minutes === undefined) return { value: "", unit: "minutes" };
  for (const u of [...units].reverse()) {
    if (minutes > 0 && minutes % UNIT_MINUTES[u] === 0) return { value: String(minutes / UNIT_MINUTES[u]), unit: u };
  }
  return { value: String(minutes), unit: "minutes" };
}

function DurationInput({
  id,
  name,
  minutes,
  units,
  placeholder,
  label,
}: {
  id: string;
  name: string;
  minutes: number | null | undefined;
  units: Unit[];
  placeholder?: string;
  label: string;
}) {
  const initial = splitMinutes(minutes, units);
  return (
    <span className="flex items-center gap-2">
      <input
        id={id}
        name={`${name}Value`}
        inputMode="numeric"
        className="input w-[96px] tabular-nums"
        defaultValue={initial.value}
        placeholder={placeholder}
      />
      <select name={`${name}Unit`} className="input w-[110px]" defaultValue={initial.unit} aria-label={`${label}: unit`}>
        {units.map((u) => (
          <option key={u} value={u}>
            {u}
          </option>
        ))}
      </select>
    </span>
  );
}

/** Tag filter rows (key · equals|contains · value), every one must hold; rows come and go, values stay in their inputs. */
function TagRows({ id, initial }: { id: string; initial: TagFilter[] }) {
  const next = useRef(initial.length);
  const [rows, setRows] = useState(() => initial.map((t, n) => ({ n, t })));
  const addRef = useRef<HTMLButtonElement>(null);
  const add = () => {
    const n = next.current++;
    setRows((r) => [...r, { n, t: { key: "", op: "equals", value: "" } }]);
    // focus the new row's key once it is rendered
    requestAnimationFrame(() => document.getElementById(`${id}-${n}-key`)?.focus());
  };
  const remove = (n: number, i: number) => {
    setRows((r) => r.filter((x) => x.n !== n));
    // keep the focus in the list: the row that takes its place, else "Add"
    requestAnimationFrame(() => {
      const rest = document.querySelectorAll<HTMLElement>(`#${CSS.escape(id)} [data-tag-key]`);
      (rest[Math.min(i, rest.length - 1)] ?? addRef.current)?.focus();
    });
  };
  return (
    <fieldset id={id} aria-label="Tag filters" className="flex min-w-0 flex-col gap-1.5">
      {rows.map(({ n, t }, i) => (
        <div key={n} className="flex flex-wrap items-center gap-1.5" data-testid="tag-filter-row">
          <input
            id={`${id}-${n}-key`}
            data-tag-key
            name="tagKey"
            className="input w-[150px] font-mono"
            defaultValue={t.key}
            placeholder="browser"
            maxLength={200}
            aria-label={`Tag key ${i + 1}`}
          />
          <select name="tagOp" className="input w-[110px]" defaultValue={t.op} aria-label={`Match ${i + 1}`}>
            <option value="equals">equals</option>
            <option value="contains">contains</option>
          </select>
          <input
            name="tagValue"
            className="input w-[200px] grow font-mono sm:max-w-[320px]"
            defaultValue={t.value}
            placeholder="Chrome"
            maxLength={200}
            aria-label={`Tag value ${i + 1}`}
          />
          <button
            type="button"
            className="btn btn-sm btn-ghost px-1.5 text-fg-muted"
            aria-label={`Remove tag filter ${i + 1}`}
            title="Remove"
            onClick={() => remove(n, i)}
          >
            ×
          </button>
        </div>
      ))}
      <span>
        <button ref={addRef} type="button" className="btn btn-sm" onClick={add} disabled={rows.length >= MAX_TAGS}>
          + Add tag filter
        </button>
      </span>
    </fieldset>
  );
}

/**
 * One rule's form. `rule` absent: a new rule (new issues and regressions checked). `prefix` keeps
 * element ids unique when several forms are on the page.
 */
export function RuleForm({
  action,
  hidden,
  channels,
  rule,
  prefix,
  submitLabel,
  testId,
}: {
  action: FormAction;
  hidden: Record<string, string>;
  channels: RuleFormChannel[];
  rule?: RuleSettings;
  prefix: string;
  submitLabel: string;
  testId?: string;
}) {
  const f = rule?.filters;
  const freq = rule?.triggers.frequency;
  const crashFree = rule?.triggers.crashFree;
  return (
    <SettingsForm
      action={action}
      hidden={hidden}
      canManage
      submitLabel={submitLabel}
      testId={testId}
      fieldLabels={FIELD_LABELS}
      resetOnSuccess={!rule}
    >
      <Field id={`${prefix}-name`} label="Name">
        <input
          id={`${prefix}-name`}
          name="name"
          className="input max-w-[420px]"
          required
          maxLength={100}
          defaultValue={rule?.name}
          placeholder="Production errors to #ops"
        />
      </Field>
      <Field
        id={`${prefix}-new`}
        label="Triggers"
        hint="Frequency counts the issue's events (or new users) within the window. Crash-free watches each release's sessions (as its release page shows them) and sends once per drop; of the filters, only environments apply to it."
      >
        <div className="flex flex-col gap-1.5">
          <label className="flex items-center gap-2">
            <input id={`${prefix}-new`} type="checkbox" name="newIssue" defaultChecked={rule ? rule.triggers.newIssue : true} /> A new issue
          </label>
          <label className="flex items-center gap-2">
            <input type="checkbox" name="regression" defaultChecked={rule ? rule.triggers.regression : true} /> A resolved issue regresses
          </label>
          <label className="flex items-center gap-2">
            <input type="checkbox" name="unignored" defaultChecked={rule?.triggers.unignored} /> An ignored issue comes back
          </label>
          <span className="flex flex-wrap items-center gap-2">
            More than
            <input
              name="freqEvents"
              inputMode="numeric"
              className="input w-[80px]"
              aria-label="Frequency: events"
              placeholder="events"
              defaultValue={freq?.events || ""}
            />
            events or
            <input
              name="freqUsers"
              inputMode="numeric"
              className="input w-[80px]"
              aria-label="Frequency: users"
              placeholder="users"
              defaultValue={freq?.users || ""}
            />
            users in
            <input
              name="freqMinutes"
              inputMode="numeric"
              className="input w-[70px]"
              aria-label="Frequency: minutes"
              placeholder="60"
              defaultValue={freq?.minutes ?? ""}
            />
            minutes
          </span>
          <span className="flex flex-wrap items-center gap-2">
            <label className="flex items-center gap-2">
              <input id={`${prefix}-crashfree`} type="checkbox" name="crashFree" defaultChecked={Boolean(crashFree)} /> A release's
              crash-free sessions drop below
            </label>
            <input
              name="crashFreeBelow"
              inputMode="decimal"
              className="input w-[70px] tabular-nums"
              aria-label="Crash-free: below percent"
              placeholder="95"
              defaultValue={crashFree?.belowPercent ?? ""}
            />
            % once
            <input
              name="crashFreeMinSessions"
              inputMode="numeric"
              className="input w-[80px] tabular-nums"
              aria-label="Crash-free: minimum sessions"
              placeholder="50"
              defaultValue={crashFree?.minSessions ?? ""}
            />
            sessions were counted
          </span>
          <label className="flex flex-wrap items-center gap-2">
            Fire when
            <select name="triggerMatch" className="input w-auto max-w-full" defaultValue={rule?.triggers.match ?? "any"}>
              <option value="any">any one of the issue triggers holds</option>
              <option value="all">all the issue triggers hold on the same event</option>
            </select>
          </label>
        </div>
      </Field>
      <Field id={`${prefix}-query`} label="Search filter" hint="The issue stream's search language, e.g. level:error !browser:*bot*">
        <input id={`${prefix}-query`} name="query" className="input max-w-[520px] font-mono" maxLength={1000} defaultValue={f?.query} />
      </Field>
      <Field id={`${prefix}-env`} label="Environments" hint="Comma separated; empty is any.">
        <input id={`${prefix}-env`} name="environments" className="input max-w-[420px]" defaultValue={f?.environments.join(", ")} />
      </Field>
      <Field id={`${prefix}-level-fatal`} label="Levels" hint="None checked is any level.">
        <div className="flex flex-wrap gap-3">
          {LEVELS.map((l) => (
            <label key={l} className="flex items-center gap-1.5">
              <input id={`${prefix}-level-${l}`} type="checkbox" name="levels" value={l} defaultChecked={f?.levels.includes(l)} /> {l}
            </label>
          ))}
        </div>
      </Field>
      <Field
        id={`${prefix}-tags`}
        label="Tag filters"
        hint="The event's tag must equal the value exactly, or contain it (any case). Every row must hold."
      >
        <TagRows id={`${prefix}-tags`} initial={f?.tags ?? []} />
      </Field>
      <Field id={`${prefix}-inapp`} label="Only in-app errors" hint="Skip events whose stack has no frame of your code.">
        <input id={`${prefix}-inapp`} type="checkbox" name="inAppOnly" defaultChecked={f?.inAppOnly} />
      </Field>
      <Field id={`${prefix}-age`} label="Issue age" hint="Only issues first seen at most this long ago; empty is any age.">
        <DurationInput
          id={`${prefix}-age`}
          name="maxIssueAge"
          label="Issue age"
          minutes={f?.maxIssueAgeMinutes}
          units={["minutes", "hours", "days"]}
        />
      </Field>
      <Field
        id={`${prefix}-channel-0`}
        label="Send to"
        hint="Issue owners are the owners of the last ownership rule (or CODEOWNERS line) the issue's first event matches; suspect commit authors are members whose commit in the event's release changed one of its files."
      >
        <div className="flex flex-col gap-1.5">
          {channels.map((c, i) => (
            <label key={c.id} className="flex items-center gap-2">
              <input
                id={`${prefix}-channel-${i}`}
                type="checkbox"
                name="channelIds"
                value={c.id}
                defaultChecked={rule?.channelIds.includes(c.id)}
              />{" "}
              {c.name}
              {/* "Project members (email)" says its kind already */}
              {c.name.toLowerCase().includes(c.kind) ? null : <span className="text-fg-dim">({c.kind})</span>}
            </label>
          ))}
          {channels.length === 0 ? <span className="text-fg-muted">No channel yet; people can still be emailed:</span> : null}
          <TargetRow prefix={prefix} type="issue_owners" current={rule?.targets.find((t) => t.type === "issue_owners")} />
          <TargetRow prefix={prefix} type="suspect_commits" current={rule?.targets.find((t) => t.type === "suspect_commits")} />
        </div>
      </Field>
      <Field
        id={`${prefix}-throttle`}
        label="Throttle"
        hint="At most one message per issue (or release) in this time (default 30 minutes; 0 sends every time a trigger fires)."
      >
        <DurationInput
          id={`${prefix}-throttle`}
          name="throttle"
          label="Throttle"
          minutes={rule?.throttleMinutes}
          units={["minutes", "hours"]}
          placeholder="30"
        />
      </Field>
      <Field id={`${prefix}-cap`} label="Hourly cap" hint="Messages per hour before the rest is held for a summary (default 60).">
        <input
          id={`${prefix}-cap`}
          name="hourlyCap"
          inputMode="numeric"
          className="input w-[96px] tabular-nums"
          placeholder="60"
          defaultValue={rule?.hourlyCap ?? ""}
        />
      </Field>
    </SettingsForm>
  );
}
