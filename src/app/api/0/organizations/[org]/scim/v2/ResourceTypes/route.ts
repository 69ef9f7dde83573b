import { app } from "@/server/app-context";
import { scimRoute } from "@/server/scim/scim-route";

// The User and Group resource types (RFC 7643 §6) as a list response.
export const GET = scimRoute<{ org: string }>(async (req, { params }) =>
  app().scim.discovery(req.headers.get("authorization"), params.org, "ResourceTypes"),
);
