"use client";

import Link from "next/link";
import { type FormEvent, useState } from "react";
import { FormAlert, FormField, readApiError, SubmitButton } from "./form-field";

const MIN_PASSWORD = 12;

/** Asks for a reset link; the answer is the same whether or not the address has an account. */
export function ForgotPasswordForm() {
  const [email, setEmail] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [sent, setSent] = useState(false);
  const [pending, setPending] = useState(false);

  async function onSubmit(ev: FormEvent<HTMLFormElement>) {
    ev.preventDefault();
    if (pending) return;
    setError(null);
    if (!email.trim()) {
      setError("Enter the email of your account.");
      return;
    }
    setPending(true);
    try {
      const res = await fetch("/api/password-reset", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: email.trim() }),
      });
      if (res.ok) setSent(true);
      else setError((await readApiError(res)).message ?? `Could not send the link (HTTP ${res.status}).`);
    } catch {
      setError("Could not reach Errata. Check the connection and try again.");
    }
    setPending(false);
  }

  if (sent) {
    return (
      <div className="flex flex-col gap-4" role="status">
        <p>If {email.trim()} has an account, a link to choose a new password is on its way. It works once, for a limited time.</p>
        <Link href="/login" className="btn">
          Back to sign in
        </Link>
      </div>
    );
  }
  return (
    <form onSubmit={onSubmit} noValidate className="flex flex-col gap-4">
      <FormField
        id="forgot-email"
        label="Email"
        name="email"
        type="email"
        autoComplete="username"
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        required
        autoFocus
      />
      <FormAlert message={error} />
      <SubmitButton pending={pending} label="Send the link" pendingLabel="Sending…" />
    </form>
  );
}

/** Sets the new password, then sends the person to sign in with it. */
export function ResetPasswordForm({ token, email }: { token: string; email: string }) {
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function onSubmit(ev: FormEvent<HTMLFormElement>) {
    ev.preventDefault();
    if (pending) return;
    setError(null);
    if (password.length < MIN_PASSWORD) {
      setError(`Use at least ${MIN_PASSWORD} characters.`);
      return;
    }
    setPending(true);
    try {
      const res = await fetch(`/api/password-reset/${encodeURIComponent(token)}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ password }),
      });
      if (res.ok) {
        window.location.assign("/login?reset=1");
        return;
      }
      setError((await readApiError(res)).message ?? `Could not set the password (HTTP ${res.status}).`);
    } catch {
      setError("Could not reach Errata. Check the connection and try again.");
    }
    setPending(false);
  }

  return (
    <form onSubmit={onSubmit} noValidate className="flex flex-col gap-4">
      <input type="text" name="username" autoComplete="username" defaultValue={email} hidden readOnly />
      <FormField
        id="reset-password"
        label="New password"
        name="password"
        type="password"
        autoComplete="new-password"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        required
        autoFocus
      />
      <FormAlert message={error} />
      <SubmitButton pending={pending} label="Set the password" pendingLabel="Saving…" />
    </form>
  );
}
