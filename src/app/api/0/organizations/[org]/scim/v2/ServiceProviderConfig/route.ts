import { app } from "@/server/app-context";
import { scimRoute } from "@/server/scim/scim-route";

// What this SCIM service supports (RFC 7643 §5); with the token, like every SCIM route.
export const GET = scimRoute<{ org: string }>(async (req, { params }) =>
  app().scim.discovery(req.headers.get("authorization"), params.org, "ServiceProviderConfig"),
);
