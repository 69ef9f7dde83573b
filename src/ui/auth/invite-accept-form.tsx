"use client";

import { type FormEvent, useState } from "react";
import { FormAlert, FormField, readApiError, SubmitButton } from "./form-field";

const MIN_PASSWORD = 12;

/**
 * Accepts an invitation. `create`: a new account (name and password), then signs in with it;
 * `join`: the signed-in account joins. Either way it lands in the organization's issues.
 */
export function InviteAcceptForm({ token, org, mode, email }: { token: string; org: string; mode: "create" | "join"; email: string }) {
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const [errors, setErrors] = useState<{ name?: string; password?: string }>({});
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function onSubmit(ev: FormEvent<HTMLFormElement>) {
    ev.preventDefault();
    if (pending) return;
    setError(null);
    if (mode === "create") {
      const local: typeof errors = {};
      if (!name.trim()) local.name = "Enter your name.";
      if (password.length < MIN_PASSWORD) local.password = `Use at least ${MIN_PASSWORD} characters.`;
      setErrors(local);
      if (Object.keys(local).length > 0) return;
    }
    setPending(true);
    try {
      const res = await fetch(`/api/invite/${encodeURIComponent(token)}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(mode === "create" ? { name: name.trim(), password } : {}),
      });
      if (!res.ok) {
        const err = await readApiError(res);
        setErrors({ name: err.fields.name, password: err.fields.password });
        setError(err.message ?? `Could not accept the invitation (HTTP ${res.status}).`);
        setPending(false);
        return;
      }
      if (mode === "create") {
        const signIn = await fetch("/api/auth/sign-in/email", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ email, password }),
        });
        if (!signIn.ok) {
          window.location.assign(`/login?next=${encodeURIComponent(`/${org}/issues`)}`);
          return;
        }
      }
      window.location.assign(`/${org}/issues`);
    } catch {
      setError("Could not reach Errata. Check the connection and try again.");
      setPending(false);
    }
  }

  if (mode === "join") {
    return (
      <form onSubmit={onSubmit} className="flex flex-col gap-4">
        <p className="text-fg-muted">Signed in as {email}.</p>
        <FormAlert message={error} />
        <SubmitButton pending={pending} label="Join the organization" pendingLabel="Joining…" />
      </form>
    );
  }
  return (
    <form onSubmit={onSubmit} noValidate className="flex flex-col gap-4">
      <FormField id="invite-email-ro" label="Email" type="email" value={email} readOnly autoComplete="username" />
      <FormField
        id="invite-name"
        label="Your name"
        name="name"
        autoComplete="name"
        value={name}
        onChange={(e) => setName(e.target.value)}
        error={errors.name}
        required
        autoFocus
      />
      <FormField
        id="invite-password"
        label="Password"
        name="password"
        type="password"
        autoComplete="new-password"
        hint={`At least ${MIN_PASSWORD} characters.`}
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        error={errors.password}
        required
      />
      <FormAlert message={error} />
      <SubmitButton pending={pending} label="Create account and join" pendingLabel="Joining…" />
    </form>
  );
}
