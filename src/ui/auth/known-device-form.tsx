"use client";

import { type FormEvent, useState } from "react";
import { FormAlert, readApiError, SubmitButton } from "./form-field";

/**
 * Confirms a mailed known-device link (a POST, so a mail scanner that opens the link does not use it
 * up): this browser gets the device cookie, then signs in with the password as usual.
 */
export function KnownDeviceForm({ token }: { token: string }) {
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function onSubmit(ev: FormEvent<HTMLFormElement>) {
    ev.preventDefault();
    if (pending) return;
    setError(null);
    setPending(true);
    try {
      const res = await fetch("/api/auth/known-device", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token }),
      });
      if (res.ok) {
        window.location.assign("/login?device=known");
        return;
      }
      setError((await readApiError(res)).message ?? `Could not confirm (HTTP ${res.status}).`);
    } catch {
      setError("Could not reach Errata. Check the connection and try again.");
    }
    setPending(false);
  }

  return (
    <form onSubmit={onSubmit} noValidate className="flex flex-col gap-4">
      <FormAlert message={error} />
      <SubmitButton pending={pending} label="Let this browser sign in" pendingLabel="Confirming…" />
    </form>
  );
}
