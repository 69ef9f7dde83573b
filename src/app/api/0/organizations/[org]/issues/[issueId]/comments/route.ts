import { app } from "@/server/app-context";
import { apiRoute, readJson, requireViewer } from "@/server/http/api-route";
import { issueIdFromPath, sentryActivity } from "@/server/issues/rest-mutations";

// Sentry's issue notes: GET lists them (newest first), POST {"text": "…"} adds one (members and up).
export const GET = apiRoute<{ org: string; issueId: string }>("event.read", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const items = await app().issueActions.activity(viewer, params.org, await issueIdFromPath(viewer, params.org, params.issueId), {
    kinds: ["comment"],
  });
  return Response.json(items.map(sentryActivity));
});

export const POST = apiRoute<{ org: string; issueId: string }>("issue.comment", async (req, { params }) => {
  const viewer = await requireViewer(req);
  const body = await readJson(req);
  const text = typeof body === "object" && body !== null ? (body as { text?: unknown }).text : undefined;
  // The service validates the text (required, ≤ 10,000 characters).
  const item = await app().issueActions.comment(
    viewer,
    params.org,
    await issueIdFromPath(viewer, params.org, params.issueId),
    typeof text === "string" ? text : "",
  );
  return Response.json(sentryActivity(item), { status: 201 });
});

export const dynamic = "force-dynamic";
