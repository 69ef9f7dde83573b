"use client";

import { useActionState, useEffect, useRef, useState } from "react";
import { type FormAction, FormStatus, IDLE, submitWithoutReset } from "../kit/settings-form";

type KeyTarget = { org: string; project: string };

function Hidden({ values }: { values: Record<string, string> }) {
  return (
    <>
      {Object.entries(values).map(([k, v]) => (
        <input key={k} type="hidden" name={k} value={v} />
      ))}
    </>
  );
}

/** Rename a key in place. */
export function KeyLabelForm({ action, target, keyId, label }: { action: FormAction; target: KeyTarget; keyId: number; label: string }) {
  const [state, formAction, pending] = useActionState(action, IDLE);
  const id = `key-label-${keyId}`;
  return (
    <form action={formAction} onSubmit={submitWithoutReset(formAction)} className="flex flex-wrap items-center gap-2">
      <Hidden values={{ ...target, keyId: String(keyId) }} />
      <label htmlFor={id} className="sr-only">
        Label of key {label}
      </label>
      <input id={id} name="label" defaultValue={label} maxLength={64} required className="input h-[28px] w-[220px] max-w-full" />
      <button type="submit" className="btn btn-sm" disabled={pending} aria-label={`Rename key ${label}`}>
        Rename
      </button>
      <FormStatus state={state} />
      {state.status === "error" && state.fields.label ? (
        <span role="alert" className="text-[12px] text-danger">
          {state.fields.label}
        </span>
      ) : null}
    </form>
  );
}

/** Turn a disabled key back on (not destructive: no confirmation). */
export function KeyEnableButton({ action, target, keyId, label }: { action: FormAction; target: KeyTarget; keyId: number; label: string }) {
  const [state, formAction, pending] = useActionState(action, IDLE);
  return (
    <form action={formAction} className="flex items-center gap-2">
      <Hidden values={{ ...target, keyId: String(keyId), active: "true" }} />
      <button type="submit" className="btn btn-sm" disabled={pending} aria-label={`Enable key ${label}`}>
        Enable
      </button>
      <FormStatus state={state} />
    </form>
  );
}

/** Create another key (e.g. one per app or environment, to disable separately). */
export function NewKeyForm({ action, target }: { action: FormAction; target: KeyTarget }) {
  const [state, formAction, pending] = useActionState(action, IDLE);
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (state.status === "ok") form.current?.reset();
  }, [state]);
  return (
    <form ref={form} action={formAction} onSubmit={submitWithoutReset(formAction)} className="flex flex-col gap-2">
      <Hidden values={target} />
      <label htmlFor="new-key-label" className="text-[13px] font-medium">
        Label
      </label>
      <div className="flex flex-wrap items-center gap-2">
        <input
          id="new-key-label"
          name="label"
          required
          maxLength={64}
          placeholder="e.g. Web app (production)"
          className="input w-[280px] max-w-full"
          aria-invalid={state.status === "error" && state.fields.label ? true : undefined}
        />
        <button type="submit" className="btn btn-primary" disabled={pending} aria-busy={pending || undefined}>
          {pending ? <span className="spinner" aria-hidden="true" /> : null}
          Create key
        </button>
        <FormStatus state={state} />
      </div>
      {state.status === "error" && state.fields.label ? (
        <p role="alert" className="text-[12px] text-danger">
          {state.fields.label}
        </p>
      ) : null}
    </form>
  );
}

/**
 * Disable or rotate a key, confirmed by typing its label. Rotation creates a new key with the same
 * label and disables the old one at once: deploy the new DSN first if events must not be lost.
 */
export function KeyDangerZoneForm({
  action,
  target,
  keys,
}: {
  action: FormAction;
  target: KeyTarget;
  keys: Array<{ id: number; label: string; publicKey: string }>;
}) {
  const [state, formAction, pending] = useActionState(action, IDLE);
  const [chosen, setKeyId] = useState(keys[0]?.id ?? 0);
  const [op, setOp] = useState<"disable" | "rotate">("disable");
  const [confirm, setConfirm] = useState("");
  // A done action must not leave the confirmation armed (a rotated key's successor has the same label).
  useEffect(() => {
    if (state.status === "ok") setConfirm("");
  }, [state]);
  // After a disable or rotation the chosen key leaves the list: fall back to the first one.
  const key = keys.find((k) => k.id === chosen) ?? keys[0];
  const keyId = key?.id ?? 0;
  if (keys.length === 0) return <p className="text-fg-muted">No active key to disable or rotate.</p>;
  const ready = key !== undefined && confirm.trim() === key.label;
  return (
    <form action={formAction} onSubmit={submitWithoutReset(formAction)} className="flex flex-col gap-3" data-testid="key-danger-form">
      <Hidden values={target} />
      <div className="flex flex-col gap-1">
        <label htmlFor="danger-key" className="text-[13px] font-medium">
          Key
        </label>
        <select
          id="danger-key"
          name="keyId"
          className="input w-[360px] max-w-full"
          value={keyId}
          onChange={(e) => {
            setKeyId(Number(e.target.value));
            setConfirm("");
          }}
        >
          {keys.map((k) => (
            <option key={k.id} value={k.id}>
              {k.label} — {k.publicKey.slice(0, 8)}…
            </option>
          ))}
        </select>
      </div>
      <fieldset className="flex flex-col gap-1.5">
        <legend className="mb-1 text-[13px] font-medium">Action</legend>
        <label className="flex items-start gap-2">
          <input type="radio" name="op" value="disable" checked={op === "disable"} onChange={() => setOp("disable")} className="mt-[3px]" />
          <span>
            <span className="font-medium">Disable</span>
            <span className="block text-[12.5px] text-fg-muted">
              Events sent with this DSN are refused (403) from the next request on. It can be enabled again.
            </span>
          </span>
        </label>
        <label className="flex items-start gap-2">
          <input type="radio" name="op" value="rotate" checked={op === "rotate"} onChange={() => setOp("rotate")} className="mt-[3px]" />
          <span>
            <span className="font-medium">Rotate</span>
            <span className="block text-[12.5px] text-fg-muted">
              A new key with the same label replaces it; the current DSN stops working immediately. Use it when a DSN leaked.
            </span>
          </span>
        </label>
      </fieldset>
      <div className="flex flex-col gap-1">
        <label htmlFor="danger-confirm" className="text-[13px] font-medium">
          Type <span className="font-mono">{key?.label}</span> to confirm
        </label>
        <input
          id="danger-confirm"
          name="confirm"
          autoComplete="off"
          spellCheck={false}
          value={confirm}
          onChange={(e) => setConfirm(e.target.value)}
          className="input w-[360px] max-w-full"
        />
      </div>
      <div className="flex flex-wrap items-center gap-3">
        <button
          type="submit"
          className="btn border-danger text-danger hover:bg-hover disabled:border-border-strong disabled:text-fg-dim"
          disabled={!ready || pending}
          aria-busy={pending || undefined}
        >
          {pending ? <span className="spinner" aria-hidden="true" /> : null}
          {op === "disable" ? "Disable key" : "Rotate key"}
        </button>
        <FormStatus state={state} />
      </div>
      {state.status === "error" && Object.keys(state.fields).length > 0 ? (
        <p role="alert" className="text-[12px] text-danger">
          {Object.values(state.fields).join(" · ")}
        </p>
      ) : null}
    </form>
  );
}
