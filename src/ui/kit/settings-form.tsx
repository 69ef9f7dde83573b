"use client";

import { type FormEvent, type ReactNode, type RefObject, startTransition, useActionState, useEffect, useId, useRef, useState } from "react";

/** What a settings Server Action answers: nothing yet, done, or what failed (per field when it can). */
export type FormResult =
  | { status: "idle" }
  /** `warning`: done, but something the person must know (shown until the next submit) */
  | { status: "ok"; message: string; at: number; warning?: string }
  | { status: "error"; message: string; fields: Record<string, string>; at: number };

export const IDLE: FormResult = { status: "idle" };

export type FormAction = (prev: FormResult, data: FormData) => Promise<FormResult>;

/**
 * Submits through the action without React's automatic form reset, so a rejected value stays in
 * its field to be corrected (the `action` attribute still works without JavaScript).
 */
export function submitWithoutReset(dispatch: (data: FormData) => void) {
  return (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    startTransition(() => dispatch(data));
  };
}

/**
 * A settings section's form: posts to a Server Action (works without JavaScript too), shows the
 * outcome next to the button and every field error by its field's label. Inputs are the children;
 * `hidden` carries the org/project/section the action needs.
 */
export function SettingsForm({
  action,
  hidden,
  canManage,
  submitLabel = "Save",
  fieldLabels = {},
  children,
  testId,
  resetOnSuccess = false,
  errorsDescribe,
}: {
  action: FormAction;
  hidden: Record<string, string>;
  canManage: boolean;
  /** the control every field error is about, when errors name parts of it (`Line 3` of a rules box) */
  errorsDescribe?: string;
  /** a create form: empty it after a success (an edit form keeps the saved values) */
  resetOnSuccess?: boolean;
  submitLabel?: string;
  fieldLabels?: Record<string, string>;
  children: ReactNode;
  testId?: string;
}) {
  const [state, formAction, pending] = useActionState(action, IDLE);
  const created = useResetOnSuccess(resetOnSuccess ? state : IDLE);
  const fieldErrors = state.status === "error" ? Object.entries(state.fields) : [];
  const errorsId = useId();
  useInvalidControls(created, state, errorsId, errorsDescribe);
  return (
    <form ref={created} action={formAction} onSubmit={submitWithoutReset(formAction)} className="flex flex-col gap-3" data-testid={testId}>
      {Object.entries(hidden).map(([k, v]) => (
        <input key={k} type="hidden" name={k} value={v} />
      ))}
      <fieldset disabled={!canManage || pending} className="flex min-w-0 flex-col gap-3">
        {children}
      </fieldset>
      {canManage ? (
        <div className="flex flex-wrap items-center gap-3">
          <button type="submit" className="btn btn-primary" disabled={pending} aria-busy={pending || undefined}>
            {pending ? <span className="spinner" aria-hidden="true" /> : null}
            {submitLabel}
          </button>
          <FormStatus state={state} />
        </div>
      ) : null}
      {fieldErrors.length > 0 ? (
        <ul id={errorsId} role="alert" className="rounded-md border border-danger px-3 py-2 text-[12.5px] text-danger">
          {fieldErrors.map(([field, message]) => (
            <li key={field}>
              <span className="font-medium">{fieldLabels[field] ?? field}</span>: {message}
            </li>
          ))}
        </ul>
      ) : null}
    </form>
  );
}

/**
 * The controls a failed save names are marked invalid and described by the error list (WCAG
 * 3.3.1): a field error's key names the control (`fingerprintingRules`, `query` of `filters.query`,
 * `raw` of `raw.3`), or every error is about `describe`. The marks go with the next result.
 */
function useInvalidControls(form: RefObject<HTMLFormElement | null>, state: FormResult, errorsId: string, describe?: string) {
  useEffect(() => {
    const root = form.current;
    if (!root || state.status !== "error") return;
    // `filters.query` is the control `query`; `raw.3` (line 3) is `raw`.
    const controlOf = (f: string) =>
      [describe, f, f.split(".").at(-1), f.split(".")[0]]
        .map((n) => (n ? root.elements.namedItem(n) : null))
        .find((el): el is Element => el instanceof Element);
    const controls = new Set(Object.keys(state.fields).map(controlOf));
    const marked: Array<{ el: Element; describedBy: string | null }> = [];
    for (const el of controls) {
      if (!el) continue;
      const describedBy = el.getAttribute("aria-describedby");
      el.setAttribute("aria-invalid", "true");
      el.setAttribute("aria-describedby", [errorsId, describedBy].filter(Boolean).join(" "));
      marked.push({ el, describedBy });
    }
    return () => {
      for (const { el, describedBy } of marked) {
        el.removeAttribute("aria-invalid");
        if (describedBy) el.setAttribute("aria-describedby", describedBy);
        else el.removeAttribute("aria-describedby");
      }
    };
  }, [form, state, errorsId, describe]);
}

/** How long a success message stays: long enough to read, gone before it describes a page that changed since. */
const OK_VISIBLE_MS = 5_000;

/**
 * A create form empties itself after a success (its values would otherwise invite a duplicate);
 * failures keep them to be corrected. Returns the ref to put on the <form>.
 */
export function useResetOnSuccess(state: FormResult, also?: () => void): RefObject<HTMLFormElement | null> {
  const form = useRef<HTMLFormElement>(null);
  // The latest callback without re-running the effect when the caller passes a new closure.
  const after = useRef(also);
  after.current = also;
  useEffect(() => {
    if (state.status !== "ok") return;
    form.current?.reset();
    // Controlled fields (a typed confirmation, a chosen item) are state: reset() does not reach them.
    after.current?.();
  }, [state]);
  return form;
}

/**
 * "Saved." / the failure, announced politely; keyed by time so the same message re-announces.
 * A success never outlives what it describes: it goes after a few seconds, as soon as its form is
 * edited again, and when any form on the page is submitted (a "✓ Added" beside a list someone
 * just removed from would be a lie).
 */
export function FormStatus({ state }: { state: FormResult }) {
  const at = state.status === "idle" ? 0 : state.at;
  const [expired, setExpired] = useState<number | null>(null);
  const here = useRef<HTMLSpanElement>(null);
  const warning = state.status === "ok" ? state.warning : undefined;
  useEffect(() => {
    if (state.status !== "ok" || warning) return;
    const expire = () => setExpired(at);
    const t = setTimeout(expire, OK_VISIBLE_MS);
    const form = here.current?.closest("form");
    form?.addEventListener("input", expire);
    // Capture: the submit handlers of the forms stop nothing, but run after this one either way.
    document.addEventListener("submit", expire, true);
    return () => {
      clearTimeout(t);
      form?.removeEventListener("input", expire);
      document.removeEventListener("submit", expire, true);
    };
  }, [state.status, at, warning]);
  return (
    <span ref={here} aria-live="polite" className="text-[12.5px]" data-form-status="">
      {warning ? (
        <span key={at} role="alert" className="text-fg" data-testid="form-warning">
          ⚠ {state.status === "ok" ? state.message : ""} {warning}
        </span>
      ) : state.status === "ok" && expired !== at ? (
        <span key={state.at} className="text-fg-muted">
          ✓ {state.message}
        </span>
      ) : state.status === "error" && Object.keys(state.fields).length === 0 ? (
        <span key={state.at} role="alert" className="text-danger">
          {state.message}
        </span>
      ) : null}
    </span>
  );
}
