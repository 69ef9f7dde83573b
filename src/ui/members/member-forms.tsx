"use client";

import { useActionState, useRef, useState } from "react";
import { CopyButton } from "../kit/copy-button";
import { type FormAction, type FormResult, FormStatus, IDLE, submitWithoutReset, useResetOnSuccess } from "../kit/settings-form";

type LinkResult = FormResult & { link?: string };
type LinkAction = (prev: LinkResult, data: FormData) => Promise<LinkResult>;

const ROLE_HINTS: Record<string, string> = {
  viewer: "reads issues, events and releases",
  member: "also resolves, ignores, assigns, comments, merges",
  admin: "also deletes issues, creates releases, manages projects, keys and invitations",
  owner: "everything, including roles and removing members",
};

function Hidden({ values }: { values: Record<string, string> }) {
  return (
    <>
      {Object.entries(values).map(([k, v]) => (
        <input key={k} type="hidden" name={k} value={v} />
      ))}
    </>
  );
}

/** The one-time link of an invitation, to copy (it is not shown again). */
function OnceLink({ link }: { link: string }) {
  return (
    <div className="mt-2 flex flex-wrap items-center gap-2 rounded-md border border-border bg-subtle px-3 py-2" data-testid="invite-link">
      <code className="min-w-0 flex-1 font-mono text-[12px] break-all">{link}</code>
      <CopyButton text={link} label="Copy invitation link" />
      <span className="w-full text-[12px] text-fg-dim">Shown once. It works for one sign-up and expires in 7 days.</span>
    </div>
  );
}

/** Invite by email (mailed when SMTP is configured) or by a link to copy. */
export function InviteForm({ action, org, roles, mail }: { action: LinkAction; org: string; roles: string[]; mail: boolean }) {
  const [state, formAction, pending] = useActionState(action, IDLE as LinkResult);
  const [role, setRole] = useState("member");
  const form = useResetOnSuccess(state, () => setRole("member"));
  const emailError = state.status === "error" ? state.fields.email : undefined;
  return (
    <form
      ref={form}
      action={formAction}
      onSubmit={submitWithoutReset(formAction)}
      className="flex flex-col gap-3"
      data-testid="invite-form"
    >
      <Hidden values={{ org }} />
      <div className="flex flex-wrap items-end gap-2">
        <div className="flex flex-col gap-1">
          <label htmlFor="invite-email" className="text-[13px] font-medium">
            Email
          </label>
          <input
            id="invite-email"
            name="email"
            type="email"
            required
            maxLength={254}
            placeholder="name@example.com"
            className="input w-[280px] max-w-full"
            aria-invalid={emailError ? true : undefined}
            aria-describedby={emailError ? "invite-email-error" : undefined}
          />
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor="invite-role" className="text-[13px] font-medium">
            Role
          </label>
          <select id="invite-role" name="role" className="input w-[140px]" value={role} onChange={(e) => setRole(e.target.value)}>
            {roles.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="btn btn-primary" disabled={pending} aria-busy={pending || undefined}>
          {pending ? <span className="spinner" aria-hidden="true" /> : null}
          Invite
        </button>
      </div>
      <p className="text-[12px] text-fg-dim">
        A {role} {ROLE_HINTS[role]}.
      </p>
      {mail ? (
        <label className="flex items-center gap-2 text-[13px]">
          <input type="checkbox" name="send" defaultChecked /> Send the invitation by email (the link is shown here either way)
        </label>
      ) : (
        <p className="text-[12px] text-fg-dim">Email is not configured (SMTP_HOST): copy the link and send it yourself.</p>
      )}
      {emailError ? (
        <span id="invite-email-error" role="alert" className="text-[12px] text-danger">
          Email: {emailError}
        </span>
      ) : null}
      <FormStatus state={state} />
      {state.status === "ok" && state.link ? <OnceLink link={state.link} /> : null}
    </form>
  );
}

/** Resend (a new link; the old one stops working) or revoke a pending invitation. */
export function InvitationActions({
  action,
  org,
  invitationId,
  email,
  mail,
  canResend,
}: {
  action: LinkAction;
  org: string;
  invitationId: number;
  email: string;
  mail: boolean;
  canResend: boolean;
}) {
  const [state, formAction, pending] = useActionState(action, IDLE as LinkResult);
  return (
    <div className="flex flex-col items-end gap-1">
      <form action={formAction} className="flex items-center gap-1.5">
        <Hidden values={{ org, invitationId: String(invitationId), ...(mail ? { send: "on" } : {}) }} />
        {canResend ? (
          <button
            type="submit"
            name="op"
            value="resend"
            className="btn btn-sm"
            disabled={pending}
            /* The visible words start the name: voice control users say what they see. */
            aria-label={mail ? `Resend invitation to ${email}` : `New link for ${email}`}
          >
            {mail ? "Resend" : "New link"}
          </button>
        ) : null}
        <button
          type="submit"
          name="op"
          value="revoke"
          className="btn btn-sm"
          disabled={pending}
          aria-label={`Revoke invitation to ${email}`}
        >
          Revoke
        </button>
      </form>
      <FormStatus state={state} />
      {state.status === "ok" && state.link ? <OnceLink link={state.link} /> : null}
    </div>
  );
}

/** An owner changes a member's role in place. */
export function RoleSelect({
  action,
  org,
  userId,
  email,
  role,
  roles,
}: {
  action: FormAction;
  org: string;
  userId: string;
  email: string;
  role: string;
  roles: string[];
}) {
  const [state, formAction, pending] = useActionState(action, IDLE);
  const form = useRef<HTMLFormElement>(null);
  return (
    <form ref={form} action={formAction} className="flex items-center gap-2">
      <Hidden values={{ org, userId }} />
      <label htmlFor={`role-${userId}`} className="sr-only">
        Role of {email}
      </label>
      <select
        id={`role-${userId}`}
        name="role"
        defaultValue={role}
        disabled={pending}
        className="input h-[28px] w-[110px]"
        onChange={() => form.current?.requestSubmit()}
      >
        {roles.map((r) => (
          <option key={r} value={r}>
            {r}
          </option>
        ))}
      </select>
      <noscript>
        <button type="submit" className="btn btn-sm">
          Change
        </button>
      </noscript>
      <FormStatus state={state} />
    </form>
  );
}

/** Remove a member: pick them and type their email to confirm. */
export function RemoveMemberForm({
  action,
  org,
  members,
}: {
  action: FormAction;
  org: string;
  members: Array<{ userId: string; email: string }>;
}) {
  const [state, formAction, pending] = useActionState(action, IDLE);
  const [userId, setUserId] = useState(members[0]?.userId ?? "");
  const [confirm, setConfirm] = useState("");
  const chosen = members.find((m) => m.userId === userId);
  const armed = chosen !== undefined && confirm.trim().toLowerCase() === chosen.email.toLowerCase();
  // The removed member leaves the list: choose one of those left and clear the confirmation.
  const form = useResetOnSuccess(state, () => {
    setConfirm("");
    setUserId(members.find((m) => m.userId !== userId)?.userId ?? "");
  });
  if (members.length === 0) return <p className="text-fg-muted">Nobody else to remove.</p>;
  return (
    <form
      ref={form}
      action={formAction}
      onSubmit={submitWithoutReset(formAction)}
      className="flex flex-col gap-2"
      data-testid="remove-member-form"
    >
      <Hidden values={{ org }} />
      <div className="flex flex-wrap items-end gap-2">
        <div className="flex flex-col gap-1">
          <label htmlFor="remove-user" className="text-[13px] font-medium">
            Member
          </label>
          <select
            id="remove-user"
            name="userId"
            className="input w-[260px] max-w-full"
            value={userId}
            onChange={(e) => setUserId(e.target.value)}
          >
            {members.map((m) => (
              <option key={m.userId} value={m.userId}>
                {m.email}
              </option>
            ))}
          </select>
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor="remove-confirm" className="text-[13px] font-medium">
            Type their email to confirm
          </label>
          <input
            id="remove-confirm"
            name="confirm"
            autoComplete="off"
            className="input w-[260px] max-w-full"
            value={confirm}
            onChange={(e) => setConfirm(e.target.value)}
            placeholder={chosen?.email}
          />
        </div>
        <button type="submit" className="btn text-danger" disabled={pending || !armed}>
          Remove member
        </button>
      </div>
      <FormStatus state={state.status === "error" ? { ...state, fields: {} } : state} />
    </form>
  );
}
