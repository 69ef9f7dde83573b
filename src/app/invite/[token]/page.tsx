import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import { isAppError } from "@/core/errors";
import { CLIENT_IP_HEADER } from "@/server/auth/requests";
import type { InvitationPreview } from "@/server/members/members";
import { AuthCard } from "@/ui/auth/auth-card";
import { InviteAcceptForm } from "@/ui/auth/invite-accept-form";
import { currentViewer, services } from "../../_lib/server";

export const metadata: Metadata = { title: "Invitation" };

/**
 * The public page behind an invitation link: a new person picks a name and password; an existing
 * account signs in first (and comes back here); a signed-in user joins with one click.
 */
export default async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const s = await services();
  let invite: InvitationPreview | null = null;
  let throttled: string | null = null;
  try {
    invite = await s.members.preview(token, (await headers()).get(CLIENT_IP_HEADER) ?? "unknown");
  } catch (err) {
    if (isAppError(err) && err.code === "rate_limited") throttled = err.message;
    invite = null;
  }
  if (throttled)
    return (
      <AuthCard title="Too many wrong links" lead={throttled}>
        <Link href="/login" className="btn">
          Sign in
        </Link>
      </AuthCard>
    );
  if (!invite) {
    return (
      <AuthCard
        title="This invitation no longer works"
        lead="It was already used, revoked, or it expired. Ask whoever invited you for a new link."
      >
        <Link href="/login" className="btn">
          Sign in
        </Link>
      </AuthCard>
    );
  }
  const viewer = await currentViewer();
  const lead = `You are invited to ${invite.orgName} as ${/^[aeiou]/.test(invite.role) ? "an" : "a"} ${invite.role}.`;
  if (viewer && viewer.email.trim().toLowerCase() !== invite.email.trim().toLowerCase()) {
    // Bound to the invited address: another account learns whom it is for and can do nothing else.
    return (
      <AuthCard
        title={`This invitation is for ${invite.email}`}
        lead={`You are signed in as ${viewer.email}. To accept it, sign out and sign in (or create the account) as ${invite.email}.`}
      >
        <Link href="/account" className="btn">
          Your account
        </Link>
      </AuthCard>
    );
  }
  if (viewer) {
    return (
      <AuthCard title={`Join ${invite.orgName}`} lead={lead}>
        <InviteAcceptForm token={token} org={invite.orgSlug} mode="join" email={viewer.email} />
      </AuthCard>
    );
  }
  if (invite.existingUser) {
    return (
      <AuthCard title={`Join ${invite.orgName}`} lead={`${lead} An account for ${invite.email} exists: sign in to accept.`}>
        <Link href={`/login?next=${encodeURIComponent(`/invite/${token}`)}`} className="btn btn-primary">
          Sign in to accept
        </Link>
      </AuthCard>
    );
  }
  return (
    <AuthCard title={`Join ${invite.orgName}`} lead={`${lead} Choose your name and a password for ${invite.email}.`}>
      <InviteAcceptForm token={token} org={invite.orgSlug} mode="create" email={invite.email} />
    </AuthCard>
  );
}
