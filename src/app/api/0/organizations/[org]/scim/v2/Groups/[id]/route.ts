import { app } from "@/server/app-context";
import { scimBody, scimJson, scimRoute } from "@/server/scim/scim-route";

type P = { org: string; id: string };

// One SCIM group: read, replace (PUT), PATCH (rename, members add/remove/replace), DELETE.
export const GET = scimRoute<P>(async (req, { params }) =>
  app().scim.groups.get(req.headers.get("authorization"), params.org, params.id, new URL(req.url).searchParams),
);
export const PUT = scimRoute<P>(async (req, { params }) =>
  app().scim.groups.replace(req.headers.get("authorization"), params.org, params.id, await scimBody(req)),
);
export const PATCH = scimRoute<P>(async (req, { params }) =>
  app().scim.groups.patch(req.headers.get("authorization"), params.org, params.id, await scimBody(req)),
);
export const DELETE = scimRoute<P>(async (req, { params }) => {
  await app().scim.groups.remove(req.headers.get("authorization"), params.org, params.id);
  return scimJson(null, 204);
});
