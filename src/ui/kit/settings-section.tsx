import type { ReactNode } from "react";

/** One settings section: a title, a short explanation, then its content. Sections stack in one column. */
export function SettingsSection({
  id,
  title,
  description,
  children,
}: {
  id: string;
  title: string;
  description?: ReactNode;
  children: ReactNode;
}) {
  return (
    <section aria-labelledby={`${id}-title`} className="border-t border-border py-5 first:border-t-0 first:pt-0">
      <h2 id={`${id}-title`} className="text-[15px] font-semibold">
        {title}
      </h2>
      {description ? <div className="mt-1 max-w-[68ch] text-fg-muted">{description}</div> : null}
      <div className="mt-3">{children}</div>
    </section>
  );
}

/** The destructive actions of a page: last, in their own box. */
export function DangerZone({
  id,
  title,
  description,
  children,
}: {
  /** the section's id (an anchor); needed when a page has more than one danger zone */
  id?: string;
  title: string;
  description?: ReactNode;
  children: ReactNode;
}) {
  const titleId = id ? `${id}-title` : "danger-title";
  return (
    <section id={id} aria-labelledby={titleId} className="mt-6 rounded-md border border-danger/60 px-4 py-4">
      <h2 id={titleId} className="text-[15px] font-semibold text-danger">
        {title}
      </h2>
      {description ? <div className="mt-1 max-w-[68ch] text-fg-muted">{description}</div> : null}
      <div className="mt-3">{children}</div>
    </section>
  );
}

/** Said once at the top of a settings page a viewer or member cannot change. */
export function ReadOnlyNote({ role }: { role: string }) {
  return (
    <p className="mb-4 rounded-md border border-border bg-subtle px-3 py-2 text-[12.5px] text-fg-muted" data-testid="read-only-note">
      You are a{role === "admin" || role === "owner" ? "n" : ""} {role} of this organization: settings are read-only for you. Admins and
      owners can change them.
    </p>
  );
}

/** A labelled control row: label and hint on the left at wide widths, the control under them on narrow ones. */
export function Field({ id, label, hint, children }: { id: string; label: string; hint?: ReactNode; children: ReactNode }) {
  return (
    <div className="grid gap-1 sm:grid-cols-[220px_minmax(0,1fr)] sm:gap-4">
      <div>
        <label htmlFor={id} className="text-[13px] font-medium">
          {label}
        </label>
        {hint ? <p className="text-[12px] text-fg-dim">{hint}</p> : null}
      </div>
      <div className="min-w-0">{children}</div>
    </div>
  );
}
