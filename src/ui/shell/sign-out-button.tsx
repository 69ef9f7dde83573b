"use client";

import { useState } from "react";

export function SignOutButton() {
  const [pending, setPending] = useState(false);
  async function signOut() {
    setPending(true);
    try {
      await fetch("/api/auth/sign-out", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    } finally {
      window.location.assign("/login");
    }
  }
  return (
    <button type="button" className="btn btn-sm btn-ghost" onClick={signOut} disabled={pending} aria-busy={pending || undefined}>
      {pending ? "Signing out…" : "Sign out"}
    </button>
  );
}
