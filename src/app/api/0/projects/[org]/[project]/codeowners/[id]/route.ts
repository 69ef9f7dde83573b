import { app } from "@/server/app-context";
import { apiRoute, requireViewer } from "@/server/http/api-route";

type P = { org: string; project: string; id: string };

export const DELETE = apiRoute<P>("project.write", async (req, { params }) => {
  const viewer = await requireViewer(req);
  await app().codeowners.remove(viewer, params.org, params.project, Number(params.id));
  return new Response(null, { status: 204 });
});
export const dynamic = "force-dynamic";
