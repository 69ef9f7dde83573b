/**
 * The organization settings' sections and the permission each needs (the page checks it again).
 * A plain module: the server layout filters them, the client nav renders them.
 */
export const ORG_SETTINGS_SECTIONS = [
  { path: "/members", label: "Members", needs: "member.invite" },
  { path: "/teams", label: "Teams", needs: "team.read" },
  { path: "/tokens", label: "Tokens", needs: "orgtoken.manage" },
  { path: "/sso", label: "Single sign-on", needs: "sso.read" },
  { path: "/import", label: "Import from Sentry", needs: "org.import" },
  { path: "/audit-log", label: "Audit log", needs: "audit.read" },
] as const;

/** Installation-wide sections, shown to the installation's operators under every organization's settings. */
export const INSTALLATION_SECTIONS = [{ path: "/backups", label: "Backups" }] as const;
