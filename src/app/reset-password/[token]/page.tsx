import type { Metadata } from "next";
import Link from "next/link";
import { AuthCard } from "@/ui/auth/auth-card";
import { ResetPasswordForm } from "@/ui/auth/password-reset-forms";
import { services } from "../../_lib/server";

export const metadata: Metadata = { title: "Choose a new password" };

/** The page behind a mailed reset link: a new password for the account, or why the link is dead. */
export default async function ResetPasswordPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const s = await services();
  const link = await s.passwordReset.check(token).catch(() => null);
  if (!link) {
    return (
      <AuthCard title="This link no longer works" lead="It was already used or it expired. Ask for a new one.">
        <Link href="/forgot-password" className="btn btn-primary">
          Send a new link
        </Link>
      </AuthCard>
    );
  }
  return (
    <AuthCard title="Choose a new password" lead={`For ${link.email}. Setting it signs this account out everywhere.`}>
      <ResetPasswordForm token={token} email={link.email} />
    </AuthCard>
  );
}
