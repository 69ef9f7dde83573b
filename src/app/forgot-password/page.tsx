import type { Metadata } from "next";
import Link from "next/link";
import { AuthCard } from "@/ui/auth/auth-card";
import { ForgotPasswordForm } from "@/ui/auth/password-reset-forms";
import { services } from "../_lib/server";

export const metadata: Metadata = { title: "Forgot password" };

export default async function ForgotPasswordPage() {
  const s = await services();
  if (!s.passwordReset.available) {
    return (
      <AuthCard
        title="Reset your password"
        lead="This installation sends no email, so it cannot mail a reset link. Ask an owner of your organization to reset your password."
      >
        <Link href="/login" className="btn">
          Back to sign in
        </Link>
      </AuthCard>
    );
  }
  return (
    <AuthCard title="Reset your password" lead="Enter the email of your account; we mail you a link to choose a new password.">
      <ForgotPasswordForm />
    </AuthCard>
  );
}
