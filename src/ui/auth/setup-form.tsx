"use client";

import { type FormEvent, useState } from "react";
import { FormAlert, FormField, readApiError, SubmitButton } from "./form-field";

const SLUG_RE = /^[a-z0-9-]{1,50}$/;
const MIN_PASSWORD = 12;

/** "Acme Corp." → "acme-corp" */
export function slugify(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 50)
    .replace(/-+$/g, "");
}

type Fields = "name" | "email" | "password" | "orgName" | "orgSlug";

export function SetupForm() {
  const [values, setValues] = useState<Record<Fields, string>>({ name: "", email: "", password: "", orgName: "", orgSlug: "" });
  const [slugEdited, setSlugEdited] = useState(false);
  const [errors, setErrors] = useState<Partial<Record<Fields, string>>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  function set(field: Fields, value: string) {
    setValues((v) => {
      const next = { ...v, [field]: value };
      if (field === "orgName" && !slugEdited) next.orgSlug = slugify(value);
      return next;
    });
    if (errors[field]) setErrors((e) => ({ ...e, [field]: undefined }));
  }

  function validate(): Partial<Record<Fields, string>> {
    const e: Partial<Record<Fields, string>> = {};
    if (!values.name.trim()) e.name = "Enter your name.";
    if (!values.email.trim()) e.email = "Enter your email address.";
    if (values.password.length < MIN_PASSWORD) e.password = `Use at least ${MIN_PASSWORD} characters.`;
    if (!values.orgName.trim()) e.orgName = "Enter the organization's name.";
    if (!SLUG_RE.test(values.orgSlug)) e.orgSlug = "Use 1–50 lowercase letters, digits or dashes.";
    return e;
  }

  async function onSubmit(ev: FormEvent<HTMLFormElement>) {
    ev.preventDefault();
    if (pending) return;
    setFormError(null);
    const local = validate();
    setErrors(local);
    if (Object.keys(local).length > 0) return;
    setPending(true);
    try {
      const res = await fetch("/api/setup", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ...values, name: values.name.trim(), email: values.email.trim(), orgName: values.orgName.trim() }),
      });
      if (!res.ok) {
        const err = await readApiError(res);
        if (err.code === "setup_done") {
          window.location.assign("/login");
          return;
        }
        const known: Partial<Record<Fields, string>> = {};
        const other: string[] = [];
        for (const [field, message] of Object.entries(err.fields)) {
          if (field in values) known[field as Fields] = message;
          else other.push(message);
        }
        setErrors(known);
        setFormError(
          other.length > 0
            ? other.join(" ")
            : Object.keys(known).length > 0
              ? "Some fields need attention."
              : (err.message ?? `Setup failed (HTTP ${res.status}).`),
        );
        setPending(false);
        return;
      }
      const body = (await res.json().catch(() => ({}))) as { orgSlug?: unknown };
      const orgSlug = typeof body.orgSlug === "string" ? body.orgSlug : values.orgSlug;
      const signIn = await fetch("/api/auth/sign-in/email", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: values.email.trim(), password: values.password }),
      });
      // A new organization has no project yet: the guided first project comes next.
      window.location.assign(signIn.ok ? `/${encodeURIComponent(orgSlug)}/onboarding` : "/login");
    } catch {
      setFormError("Could not reach Errata. Check the connection and try again.");
      setPending(false);
    }
  }

  return (
    <form onSubmit={onSubmit} noValidate className="flex flex-col gap-4">
      <FormField
        id="setup-name"
        label="Your name"
        name="name"
        autoComplete="name"
        value={values.name}
        onChange={(e) => set("name", e.target.value)}
        error={errors.name}
        required
      />
      <FormField
        id="setup-email"
        label="Email"
        name="email"
        type="email"
        autoComplete="email"
        value={values.email}
        onChange={(e) => set("email", e.target.value)}
        error={errors.email}
        required
      />
      <FormField
        id="setup-password"
        label="Password"
        name="password"
        type="password"
        autoComplete="new-password"
        value={values.password}
        onChange={(e) => set("password", e.target.value)}
        error={errors.password}
        hint={`At least ${MIN_PASSWORD} characters; a few unrelated words work well.`}
        required
        minLength={MIN_PASSWORD}
      />
      <div className="my-1 border-t border-border" />
      <FormField
        id="setup-org-name"
        label="Organization name"
        name="orgName"
        autoComplete="organization"
        value={values.orgName}
        onChange={(e) => set("orgName", e.target.value)}
        error={errors.orgName}
        required
      />
      <FormField
        id="setup-org-slug"
        label="Organization slug"
        name="orgSlug"
        className="input font-mono"
        value={values.orgSlug}
        onChange={(e) => {
          setSlugEdited(true);
          set("orgSlug", e.target.value.toLowerCase());
        }}
        error={errors.orgSlug}
        hint={`Used in URLs: /${values.orgSlug || "acme"}/issues. Lowercase letters, digits and dashes, up to 50.`}
        required
        pattern="[a-z0-9-]{1,50}"
        maxLength={50}
        spellCheck={false}
        autoCapitalize="off"
      />
      <FormAlert message={formError} />
      <SubmitButton pending={pending} label="Create account and organization" pendingLabel="Setting up…" />
    </form>
  );
}
