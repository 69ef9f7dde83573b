import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { ERROR_CATALOGUE, type ErrorCode } from "@/core/errors";
import { AuthCard } from "@/ui/auth/auth-card";
import { LoginForm, SsoForm } from "@/ui/auth/login-form";
import { safeNextPath } from "@/ui/auth/safe-next";
import { currentViewer, param, services } from "../_lib/server";

export const metadata: Metadata = { title: "Sign in" };

export default async function LoginPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const s = await services();
  if (!(await s.setup.isDone())) redirect("/setup");
  const sp = await searchParams;
  const next = safeNextPath(param(sp.next));
  const ssoError = ssoErrorMessage(param(sp.sso_error));
  if (!ssoError && (await currentViewer())) redirect(next ?? "/");
  return (
    <AuthCard title="Sign in to Errata">
      {param(sp.reset) === "1" ? (
        <p role="status" className="mb-4 rounded-md border border-border px-3 py-2 text-[13px]">
          Your password is set and every session was signed out. Sign in with the new password.
        </p>
      ) : null}
      {param(sp.device) === "known" ? (
        <p role="status" className="mb-4 rounded-md border border-border px-3 py-2 text-[13px]">
          This browser may now sign in to your account, even while sign-in is paused for new browsers. Sign in with your password.
        </p>
      ) : null}
      <LoginForm next={next} forgotPassword={s.passwordReset.available} />
      <div className="my-6 flex items-center gap-3 text-[12px] text-fg-muted" aria-hidden="true">
        <span className="h-px flex-1 bg-border" />
        or
        <span className="h-px flex-1 bg-border" />
      </div>
      <SsoForm next={next} org={(param(sp.org) ?? "").slice(0, 100)} error={ssoError} />
    </AuthCard>
  );
}

/** Only catalogue codes come back from a failed SSO step; the message is ours, never the query's. */
function ssoErrorMessage(code: string | undefined): string | null {
  if (!code || !Object.hasOwn(ERROR_CATALOGUE, code)) return null;
  return ERROR_CATALOGUE[code as ErrorCode].message;
}
