import { app } from "@/server/app-context";
import { scimBody, scimJson, scimRoute } from "@/server/scim/scim-route";

type P = { org: string; id: string };

// One SCIM user: read, replace (PUT), PATCH (active:false deprovisions at once), DELETE.
export const GET = scimRoute<P>(async (req, { params }) => app().scim.users.get(req.headers.get("authorization"), params.org, params.id));
export const PUT = scimRoute<P>(async (req, { params }) =>
  app().scim.users.replace(req.headers.get("authorization"), params.org, params.id, await scimBody(req)),
);
export const PATCH = scimRoute<P>(async (req, { params }) =>
  app().scim.users.patch(req.headers.get("authorization"), params.org, params.id, await scimBody(req)),
);
export const DELETE = scimRoute<P>(async (req, { params }) => {
  await app().scim.users.remove(req.headers.get("authorization"), params.org, params.id);
  return scimJson(null, 204);
});
