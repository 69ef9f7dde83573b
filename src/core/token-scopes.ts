/**
 * API token scopes (SPEC §6): Sentry's whole vocabulary, so tools written for Sentry can ask for
 * the scopes they know (`team:read`, `org:write`, `project:admin`, …). What each grants in Errata is
 * the permission table's business (src/server/access/permissions.ts); here only the names, Sentry's
 * hierarchy between them and the way Sentry's token form groups them.
 */
export const TOKEN_SCOPES = [
  "org:read",
  "project:read",
  "project:write",
  "project:releases",
  "event:read",
  "event:write",
  "member:read",
  "member:write",
  // The rest of Sentry's vocabulary (issue 41).
  "org:write",
  "org:admin",
  "org:integrations",
  "org:ci",
  "project:admin",
  "project:distribution",
  "team:read",
  "team:write",
  "team:admin",
  "member:invite",
  "member:admin",
  "event:admin",
  "alerts:read",
  "alerts:write",
] as const;

export type ScopeName = (typeof TOKEN_SCOPES)[number];

export function isScopeName(s: string): s is ScopeName {
  return (TOKEN_SCOPES as readonly string[]).includes(s);
}

/**
 * Sentry's scope hierarchy (`SENTRY_SCOPE_HIERARCHY_MAPPING`): a scope carries the ones below it,
 * so a token with `project:admin` reads and writes projects too.
 */
export const SCOPE_IMPLIES: Readonly<Partial<Record<ScopeName, readonly ScopeName[]>>> = {
  "org:write": ["org:read"],
  "org:admin": ["org:write", "org:read", "org:integrations"],
  "project:write": ["project:read"],
  "project:admin": ["project:write", "project:read"],
  "team:write": ["team:read"],
  "team:admin": ["team:write", "team:read"],
  "member:invite": ["member:read"],
  "member:write": ["member:invite", "member:read"],
  "member:admin": ["member:write", "member:invite", "member:read"],
  "event:write": ["event:read"],
  "event:admin": ["event:write", "event:read"],
  "alerts:write": ["alerts:read"],
};

/** The scopes with the ones they carry, in the vocabulary's order; unknown names are kept as they are (they grant nothing). */
export function expandScopes(scopes: readonly string[]): string[] {
  const out = new Set<string>();
  for (const s of scopes) {
    out.add(s);
    for (const implied of isScopeName(s) ? (SCOPE_IMPLIES[s] ?? []) : []) out.add(implied);
  }
  const known = TOKEN_SCOPES.filter((s) => out.has(s));
  return [...known, ...[...out].filter((s) => !isScopeName(s))];
}

export interface ScopeGroup {
  /** what Sentry's form calls the resource */
  resource: string;
  /** the level's scope (each level carries the ones before it) */
  levels: ReadonlyArray<{ label: "Read" | "Read & Write" | "Admin"; scope: ScopeName }>;
  /** what the resource covers in Errata, for the form */
  what: string;
}

/** Sentry's personal-token form: one choice per resource, "No Access" or a level. */
export const SCOPE_GROUPS: readonly ScopeGroup[] = [
  {
    resource: "Project",
    levels: [
      { label: "Read", scope: "project:read" },
      { label: "Read & Write", scope: "project:write" },
      { label: "Admin", scope: "project:admin" },
    ],
    what: "projects, their settings, keys and monitors",
  },
  {
    resource: "Team",
    levels: [
      { label: "Read", scope: "team:read" },
      { label: "Read & Write", scope: "team:write" },
      { label: "Admin", scope: "team:admin" },
    ],
    what: "teams and who is in them",
  },
  { resource: "Release", levels: [{ label: "Admin", scope: "project:releases" }], what: "releases, deploys and source maps" },
  {
    resource: "Issue & Event",
    levels: [
      { label: "Read", scope: "event:read" },
      { label: "Read & Write", scope: "event:write" },
      { label: "Admin", scope: "event:admin" },
    ],
    what: "issues, events, traces and logs; triage; deleting issues needs Admin",
  },
  {
    resource: "Organization",
    levels: [
      { label: "Read", scope: "org:read" },
      { label: "Read & Write", scope: "org:write" },
      { label: "Admin", scope: "org:admin" },
    ],
    what: "the organization, its projects and stats (organization settings change only in the browser)",
  },
  {
    resource: "Member",
    levels: [
      { label: "Read", scope: "member:read" },
      { label: "Read & Write", scope: "member:write" },
      { label: "Admin", scope: "member:admin" },
    ],
    what: "members and invitations",
  },
  {
    resource: "Alerts",
    levels: [
      { label: "Read", scope: "alerts:read" },
      { label: "Read & Write", scope: "alerts:write" },
    ],
    what: "alert rules",
  },
];
