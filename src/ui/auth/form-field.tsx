import type { InputHTMLAttributes } from "react";

/** A labelled input with an optional hint and an error tied to it via aria-describedby. */
export function FormField({
  id,
  label,
  hint,
  error,
  ...input
}: { id: string; label: string; hint?: string; error?: string } & InputHTMLAttributes<HTMLInputElement>) {
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [errorId, hintId].filter(Boolean).join(" ") || undefined;
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-[13px] font-medium">
        {label}
      </label>
      <input id={id} className="input" aria-invalid={error ? true : undefined} aria-describedby={describedBy} {...input} />
      {error ? (
        <p id={errorId} className="text-[12px] text-danger">
          {error}
        </p>
      ) : null}
      {hint ? (
        <p id={hintId} className="text-[12px] text-fg-dim">
          {hint}
        </p>
      ) : null}
    </div>
  );
}

/** Submit button that shows progress while a request is in flight. */
export function SubmitButton({
  pending,
  label,
  pendingLabel,
  variant = "primary",
}: {
  pending: boolean;
  label: string;
  pendingLabel: string;
  variant?: "primary" | "secondary";
}) {
  return (
    <button
      type="submit"
      className={`btn ${variant === "primary" ? "btn-primary" : ""} h-[34px] w-full`}
      disabled={pending}
      aria-busy={pending || undefined}
    >
      {pending ? (
        <>
          <span className="spinner" aria-hidden="true" />
          {pendingLabel}
        </>
      ) : (
        label
      )}
    </button>
  );
}

/** A form-level error (not tied to one field). */
export function FormAlert({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <div role="alert" className="rounded-md border border-danger px-3 py-2 text-[13px] text-danger">
      {message}
    </div>
  );
}

/** Reads the `{error: {code, message, fields}}` body of an Errata API error, tolerating anything else. */
export async function readApiError(
  res: Response,
): Promise<{ code: string | null; message: string | null; fields: Record<string, string> }> {
  const fields: Record<string, string> = {};
  try {
    const body: unknown = await res.json();
    const err = (body as { error?: unknown })?.error;
    if (err && typeof err === "object") {
      const e = err as { code?: unknown; message?: unknown; fields?: unknown };
      if (Array.isArray(e.fields)) {
        for (const f of e.fields) {
          if (f && typeof f === "object" && typeof f.field === "string" && !fields[f.field]) {
            fields[f.field] = typeof f.message === "string" ? sentence(f.message) : "Invalid value.";
          }
        }
      }
      return { code: typeof e.code === "string" ? e.code : null, message: typeof e.message === "string" ? e.message : null, fields };
    }
    // Better Auth answers {code, message}.
    const b = body as { code?: unknown; message?: unknown };
    return { code: typeof b?.code === "string" ? b.code : null, message: typeof b?.message === "string" ? b.message : null, fields };
  } catch {
    return { code: null, message: null, fields };
  }
}

/** "enter a valid email address" → "Enter a valid email address." */
function sentence(s: string): string {
  const t = s.trim();
  if (!t) return t;
  const first = t[0].toUpperCase() + t.slice(1);
  return /[.!?]$/.test(first) ? first : `${first}.`;
}
