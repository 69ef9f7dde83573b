"use client";
/**
 * One CODEOWNERS name and what it stands for here: a select of the organization's teams and
 * members, saved on its own (the Server Action maps or unmaps it). An unmatched name says so.
 */
import { useActionState } from "react";
import { type FormAction, FormStatus, IDLE, submitWithoutReset } from "../kit/settings-form";

export interface MappingRow {
  name: string;
  /** `#payments` or an email; null: unmatched */
  target: string | null;
  mappingId: string | null;
}

export function CodeownersMappingRow({
  action,
  hidden,
  row,
  teams,
  members,
  canManage,
  index,
}: {
  action: FormAction;
  hidden: Record<string, string>;
  row: MappingRow;
  teams: string[];
  members: string[];
  canManage: boolean;
  index: number;
}) {
  const [state, formAction, pending] = useActionState(action, IDLE);
  const current = row.target === null ? "" : row.target.startsWith("#") ? `team:${row.target.slice(1)}` : `user:${row.target}`;
  const id = `codeowners-name-${index}`;
  return (
    <li className="border-b border-border last:border-b-0" data-testid="codeowners-name" data-name={row.name}>
      <form action={formAction} onSubmit={submitWithoutReset(formAction)} className="flex flex-wrap items-center gap-2 py-1.5">
        {Object.entries({ ...hidden, externalName: row.name, mappingId: row.mappingId ?? "" }).map(([k, v]) => (
          <input key={k} type="hidden" name={k} value={v} />
        ))}
        <label htmlFor={id} className="w-[200px] min-w-0 break-all font-mono text-[12.5px]">
          {row.name}
        </label>
        {row.target === null ? (
          <span className="badge border-dashed font-semibold" data-testid="unmatched">
            unmatched
          </span>
        ) : (
          <span className="text-fg-muted">→ {row.target}</span>
        )}
        <select id={id} name="target" defaultValue={current} className="input w-[240px]" disabled={!canManage || pending}>
          <option value="">— not mapped —</option>
          <optgroup label="Teams">
            {teams.map((t) => (
              <option key={t} value={`team:${t}`}>
                #{t}
              </option>
            ))}
          </optgroup>
          <optgroup label="Members">
            {members.map((m) => (
              <option key={m} value={`user:${m}`}>
                {m}
              </option>
            ))}
          </optgroup>
        </select>
        {canManage ? (
          <button type="submit" className="btn btn-sm" disabled={pending} aria-label={`Save mapping of ${row.name}`}>
            Save
          </button>
        ) : null}
        <FormStatus state={state} />
      </form>
    </li>
  );
}
