import { app } from "@/server/app-context";
import { scimBody, scimRoute } from "@/server/scim/scim-route";

type P = { org: string };

// SCIM Groups: list (filter displayName eq, excludedAttributes=members) and create (a group becomes a team).
export const GET = scimRoute<P>(async (req, { params }) =>
  app().scim.groups.list(req.headers.get("authorization"), params.org, new URL(req.url).searchParams),
);
export const POST = scimRoute<P>(
  async (req, { params }) => app().scim.groups.create(req.headers.get("authorization"), params.org, await scimBody(req)),
  201,
);
