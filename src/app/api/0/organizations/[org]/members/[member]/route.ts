import { app } from "@/server/app-context";
import { apiRoute, readJson, requireViewer } from "@/server/http/api-route";
import { sentryMemberDetail } from "@/server/sentry-api/shapes/member";

async function memberOrThrow(req: Request, org: string, id: string) {
  const viewer = await requireViewer(req);
  const [members, facts] = await Promise.all([app().members.list(viewer, org), app().members.sentryFacts(viewer, org)]);
  const found = members.find((x) => x.userId === id);
  return { viewer, m: found ? sentryMemberDetail(found, facts) : undefined };
}

export const GET = apiRoute<{ org: string; member: string }>("member.read", async (req, { params }) => {
  const { m } = await memberOrThrow(req, params.org, params.member);
  return m ? Response.json(m) : Response.json({ error: { code: "not_found", message: "Member not found." } }, { status: 404 });
});

// Sentry: {orgRole} changes the role (owners only).
export const PUT = apiRoute<{ org: string; member: string }>("member.admin", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const body = ((await readJson(req)) ?? {}) as { orgRole?: unknown; role?: unknown };
  const role = typeof body.orgRole === "string" ? body.orgRole : typeof body.role === "string" ? body.role : "";
  await app().members.changeRole(viewer, params.org, params.member, role);
  const { m } = await memberOrThrow(req, params.org, params.member);
  return Response.json(m ?? {});
});

export const DELETE = apiRoute<{ org: string; member: string }>("member.admin", async (req, { params }) => {
  const viewer = await requireViewer(req);
  await app().members.remove(viewer, params.org, params.member);
  return new Response(null, { status: 204 });
});
export const dynamic = "force-dynamic";
