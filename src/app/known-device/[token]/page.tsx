import type { Metadata } from "next";
import Link from "next/link";
import { AuthCard } from "@/ui/auth/auth-card";
import { KnownDeviceForm } from "@/ui/auth/known-device-form";
import { services } from "../../_lib/server";

export const metadata: Metadata = { title: "Sign in from this browser" };

/** The page behind the link mailed to a locked account's owner: one button, or why the link is dead. */
export default async function KnownDevicePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const s = await services();
  if (!(await s.knownDevices.usable(token))) {
    return (
      <AuthCard
        title="This link no longer works"
        lead="It was already used or it expired. Browsers that signed in to the account before can still sign in, and a new link is mailed if the account is locked again."
      >
        <Link href="/login" className="btn btn-primary">
          Go to sign in
        </Link>
      </AuthCard>
    );
  }
  return (
    <AuthCard
      title="Sign in from this browser"
      lead="Failed sign-ins from other addresses paused sign-in to your account for new browsers. Confirm to let this browser sign in with your password anyway."
    >
      <KnownDeviceForm token={token} />
    </AuthCard>
  );
}
