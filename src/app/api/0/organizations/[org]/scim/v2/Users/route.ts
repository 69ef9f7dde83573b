import { app } from "@/server/app-context";
import { scimBody, scimRoute } from "@/server/scim/scim-route";

type P = { org: string };

// SCIM Users (RFC 7644 §3.4.2, §3.3): list with filter/startIndex/count, and create.
export const GET = scimRoute<P>(async (req, { params }) =>
  app().scim.users.list(req.headers.get("authorization"), params.org, new URL(req.url).searchParams),
);
export const POST = scimRoute<P>(
  async (req, { params }) => app().scim.users.create(req.headers.get("authorization"), params.org, await scimBody(req)),
  201,
);
