/** API token scopes (SPEC §6), as Sentry names them. */
export const TOKEN_SCOPES = [
  "org:read",
  "project:read",
  "project:write",
  "project:releases",
  "event:read",
  "event:write",
  "member:read",
  "member:write",
] as const;
