import { app } from "@/server/app-context";
import { apiRoute, readJson, requireViewer } from "@/server/http/api-route";
import { sentryInvitedMember, sentryMember } from "@/server/sentry-api/shapes/member";

// Sentry: the members, then pending invitations (`pending: true`, shown to admins and owners).
export const GET = apiRoute<{ org: string }>("member.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const services = app();
  const [members, invited, facts] = await Promise.all([
    services.members.list(viewer, params.org),
    services.members.pendingInvitations(viewer, params.org),
    services.members.sentryFacts(viewer, params.org),
  ]);
  return Response.json([...members.map((m) => sentryMember(m, facts)), ...invited.map((i) => sentryInvitedMember(i, members))]);
});

// Sentry: {email, orgRole (or role), sendInvite?}; answers the pending invitation.
export const POST = apiRoute<{ org: string }>("member.invite", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const body = ((await readJson(req)) ?? {}) as { email?: unknown; orgRole?: unknown; role?: unknown; sendInvite?: unknown };
  const res = await app().members.invite(viewer, params.org, {
    email: typeof body.email === "string" ? body.email : "",
    role: typeof body.orgRole === "string" ? body.orgRole : typeof body.role === "string" ? body.role : "member",
    send: body.sendInvite !== false,
  });
  const i = res.invitation;
  return Response.json(
    { id: `invite-${i.id}`, email: i.email, role: i.role, orgRole: i.role, pending: true, expired: false, inviteLink: res.link },
    { status: 201 },
  );
});
export const dynamic = "force-dynamic";
