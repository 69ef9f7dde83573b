"use client";

import Link from "next/link";
import { type FormEvent, useState } from "react";
import { FormAlert, FormField, readApiError, SubmitButton } from "./form-field";

export function LoginForm({ next, forgotPassword }: { next: string | null; forgotPassword: boolean }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function onSubmit(ev: FormEvent<HTMLFormElement>) {
    ev.preventDefault();
    if (pending) return;
    setError(null);
    if (!email.trim() || !password) {
      setError("Enter your email and password.");
      return;
    }
    setPending(true);
    try {
      const res = await fetch("/api/auth/sign-in/email", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: email.trim(), password }),
      });
      if (res.ok) {
        window.location.assign(next ?? "/");
        return;
      }
      if (res.status === 401) setError("Email or password is incorrect.");
      else if (res.status === 429) {
        // The server's catalogued `sign_in_throttled` / `account_locked` message says how long to wait.
        const err = await readApiError(res);
        setError(err.message ?? "Too many failed sign-in attempts. Wait a few minutes and try again.");
      } else {
        const err = await readApiError(res);
        // 400: what was wrong with the input; 403: the organization requires single sign-on.
        const explained = (res.status === 400 || res.status === 403) && err.message;
        setError(explained || `Sign-in failed (HTTP ${res.status}). Try again in a moment.`);
      }
    } catch {
      setError("Could not reach Errata. Check the connection and try again.");
    }
    setPending(false);
  }

  return (
    <form onSubmit={onSubmit} noValidate className="flex flex-col gap-4">
      <FormField
        id="login-email"
        label="Email"
        name="email"
        type="email"
        autoComplete="username"
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        required
        autoFocus
      />
      <FormField
        id="login-password"
        label="Password"
        name="password"
        type="password"
        autoComplete="current-password"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        required
      />
      {forgotPassword ? (
        <Link href="/forgot-password" className="-mt-2 self-end text-[12.5px] text-fg-muted hover:text-fg">
          Forgot password?
        </Link>
      ) : null}
      <FormAlert message={error} />
      <SubmitButton pending={pending} label="Sign in" pendingLabel="Signing in…" />
    </form>
  );
}

/**
 * Single sign-on: the organization's short name leads to its identity provider
 * (/api/sso/{org}/start), which sends the browser back signed in.
 */
export function SsoForm({ next, org, error }: { next: string | null; org: string; error: string | null }) {
  const [slug, setSlug] = useState(org);
  const [local, setLocal] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  function onSubmit(ev: FormEvent<HTMLFormElement>) {
    ev.preventDefault();
    const value = slug.trim().toLowerCase();
    if (!value) {
      setLocal("Enter your organization's short name, as in its address (errata.example.com/acme → acme).");
      return;
    }
    setPending(true);
    const query = next ? `?next=${encodeURIComponent(next)}` : "";
    window.location.assign(`/api/sso/${encodeURIComponent(value)}/start${query}`);
  }

  return (
    <form onSubmit={onSubmit} noValidate className="flex flex-col gap-3" aria-labelledby="sso-heading">
      <h2 id="sso-heading" className="text-[13px] font-semibold">
        Sign in with SSO
      </h2>
      <FormField
        id="sso-org"
        label="Organization"
        name="org"
        autoComplete="organization"
        placeholder="acme"
        value={slug}
        onChange={(e) => setSlug(e.target.value)}
      />
      <FormAlert message={local ?? error} />
      <SubmitButton pending={pending} label="Continue with SSO" pendingLabel="Redirecting…" variant="secondary" />
    </form>
  );
}
