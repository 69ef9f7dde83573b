/**
 * The permission table (SPEC §6): every action on an organization's data, the least role that may
 * do it and the token scopes that allow it (any one of them), like Sentry's `permission_classes`.
 * Services call `access.authorize(viewer, orgSlug, action)`; REST routes name their action in
 * `apiRoute(...)`; the role matrix test (test/security/role-matrix.test.ts) reads its
 * expectations from here, and the README's role table is checked against `roleTable()`.
 *
 * Credentials:
 *  - a browser session acts with the member's current role;
 *  - a personal (user) token acts with its scopes AND its creator's current role, whichever is
 *    narrower: a viewer's token with `project:releases` still cannot create a release;
 *  - an organization token is for CI, as Sentry's `org:ci`: only the actions marked `ci` here
 *    (releases, deploys, source maps and the reads they need) — never members, keys, projects,
 *    settings or deletions — and, like a personal token, never beyond its creator's current role
 *    (a creator demoted to viewer leaves it reading releases only; a creator removed from the
 *    organization takes it with them). A personal token may carry `org:ci` too: it then passes the
 *    same rows.
 * Scopes are Sentry's whole vocabulary (core/token-scopes.ts) with Sentry's hierarchy (`project:admin`
 * carries `project:write` and `project:read`, …): a row lists the least scopes that allow it.
 * Session-only actions (tokens, single sign-on) refuse every token.
 */
import { expandScopes, type ScopeName, TOKEN_SCOPES } from "../../core/token-scopes";
import type { Role } from "../types";

export type TokenScope = ScopeName;

export const ROLE_ORDER: readonly Role[] = ["viewer", "member", "admin", "owner"];
const RANK: Record<Role, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };

export function roleAtLeast(role: Role, need: Role): boolean {
  return RANK[role] >= RANK[need];
}

export interface Permission {
  /** The least role that may do it. */
  role: Role;
  /** A token needs one of these; the first is the one a role grants. Empty with `sessionOnly`. */
  scopes: readonly TokenScope[];
  /** Never with a token, only from a signed-in browser. */
  sessionOnly?: boolean;
  /** An organization token (Sentry's `org:ci`) may do it: CI's releases, deploys, uploads and the reads they need. */
  ci?: boolean;
  /** What it is, for messages and the README's role table. */
  what: string;
}

const READ_RELEASES = ["project:read", "project:releases", "project:write", "org:read"] as const;
const WRITE_RELEASES = ["project:releases", "project:write"] as const;

export const PERMISSIONS = {
  // Reads: every role.
  "org.read": {
    role: "viewer",
    scopes: ["org:read", "project:read", "project:releases", "project:write"],
    ci: true,
    what: "see the organization, its projects, teams and stats",
  },
  "project.read": { role: "viewer", scopes: ["project:read"], what: "see projects, their settings and monitors" },
  // Sentry's alerts:read reads alert rules and nothing else of a project.
  "alert.read": { role: "viewer", scopes: ["project:read", "alerts:read"], what: "see alert rules, channels and deliveries" },
  "event.read": { role: "viewer", scopes: ["event:read"], what: "read issues, events, attachments, comments and feedback" },
  "member.read": { role: "viewer", scopes: ["member:read"], what: "list members" },
  "member.leave": { role: "viewer", scopes: [], sessionOnly: true, what: "leave the organization" },
  "release.read": { role: "viewer", scopes: READ_RELEASES, ci: true, what: "read releases, commits and deploys" },
  // Members: triage and ship.
  "issue.update": { role: "member", scopes: ["event:write"], what: "resolve, ignore, assign, merge and unmerge issues" },
  "issue.comment": { role: "member", scopes: ["event:write"], what: "comment on issues" },
  "alert.mute": { role: "member", scopes: ["event:write"], what: "mute an issue's alerts" },
  "feedback.create": { role: "member", scopes: ["event:write", "project:write"], what: "add user feedback" },
  "release.write": {
    role: "member",
    scopes: WRITE_RELEASES,
    ci: true,
    what: "create and edit releases and record deploys",
  },
  "artifact.upload": { role: "member", scopes: WRITE_RELEASES, ci: true, what: "upload source maps and release files" },
  // Sentry's org:ci may create and finalize releases but not delete them (DELETE needs project:releases).
  "release.delete": { role: "member", scopes: WRITE_RELEASES, what: "delete releases" },
  // Admins: configure.
  "issue.delete": { role: "admin", scopes: ["event:write", "event:admin"], what: "delete issues" },
  "replay.delete": { role: "admin", scopes: ["event:write", "event:admin"], what: "delete session replays" },
  "project.write": { role: "admin", scopes: ["project:write"], what: "create projects and change their settings" },
  "key.write": { role: "admin", scopes: ["project:write"], what: "create, disable, rename and delete DSN keys" },
  "team.read": { role: "admin", scopes: ["project:read", "team:read"], what: "see the teams settings" },
  "team.write": { role: "admin", scopes: ["project:write", "team:write"], what: "manage teams" },
  "alert.write": { role: "admin", scopes: ["project:write", "alerts:write"], what: "change alert rules and channels" },
  "monitor.write": { role: "admin", scopes: ["project:write"], what: "create and change cron and uptime monitors" },
  "stats.outcomes": { role: "admin", scopes: ["project:read"], what: "read a project's ingest outcome counters" },
  "member.invite": { role: "admin", scopes: ["member:write", "member:invite"], what: "invite people and manage invitations" },
  "orgtoken.manage": { role: "admin", scopes: [], sessionOnly: true, what: "manage organization tokens" },
  "sso.read": { role: "admin", scopes: [], sessionOnly: true, what: "see single sign-on settings" },
  // Owners: who is in charge.
  "member.admin": { role: "owner", scopes: ["member:write", "member:admin"], what: "change roles, remove members and invite owners" },
  "sso.write": { role: "owner", scopes: [], sessionOnly: true, what: "change single sign-on" },
  "org.import": { role: "owner", scopes: [], sessionOnly: true, what: "import an organization from Sentry" },
  "audit.read": { role: "owner", scopes: ["org:write"], what: "read the audit log" },
  // The installation's own pages (backups): asked of the viewer's role in the installation's first
  // organization, whose owners run the installation (storage/installation.ts).
  "installation.backups": {
    role: "owner",
    scopes: [],
    sessionOnly: true,
    what: "see the installation's backups (in its first organization)",
  },
} as const satisfies Record<string, Permission>;

export type Action = keyof typeof PERMISSIONS;

export const ACTIONS = Object.keys(PERMISSIONS) as Action[];

export function isAction(name: string): name is Action {
  return Object.hasOwn(PERMISSIONS, name);
}

/** How the caller proved who they are. */
export type Credential =
  | { kind: "session" }
  | { kind: "user-token"; scopes: readonly string[] }
  | { kind: "org-token"; scopes: readonly string[] };

/** The one scope an organization token carries (Sentry's): what it may do is the `ci` rows. */
export const ORG_TOKEN_SCOPE = "org:ci";

/** Why `credential` with `role` (for a token: its creator's current role) may not do `action`, or null when it may. */
export function denial(role: Role, credential: Credential, action: Action): string | null {
  const p: Permission = PERMISSIONS[action];
  if (credential.kind !== "session" && p.sessionOnly) return `Only a signed-in browser may ${p.what}; tokens cannot.`;
  if (credential.kind === "org-token" && !p.ci)
    return `An organization token is for CI (releases, deploys and source maps); it cannot ${p.what}.`;
  if (!roleAtLeast(role, p.role)) {
    const who = `a${role === "admin" || role === "owner" ? "n" : ""} ${role}`;
    const by = credential.kind === "org-token" ? `An organization token made by ${who}` : `${who[0]?.toUpperCase()}${who.slice(1)}`;
    return `${by} cannot ${p.what}; that needs the ${p.role} role or above.`;
  }
  if (credential.kind === "user-token") {
    const has = expandScopes(credential.scopes);
    const ci = p.ci === true && has.includes(ORG_TOKEN_SCOPE);
    if (!ci && !p.scopes.some((s) => has.includes(s))) return `This token lacks the "${p.scopes[0]}" scope (needed to ${p.what}).`;
  }
  if (credential.kind === "org-token" && !credential.scopes.includes(ORG_TOKEN_SCOPE))
    return `This organization token lacks the "${ORG_TOKEN_SCOPE}" scope (needed to ${p.what}).`;
  return null;
}

export function permits(role: Role, credential: Credential, action: Action): boolean {
  return denial(role, credential, action) === null;
}

/** Every action with whether it is allowed: what a screen asks before it shows a control. */
export type Permits = Readonly<Record<Action, boolean>>;

export function permitsAll(role: Role, credential: Credential): Permits {
  return Object.fromEntries(ACTIONS.map((a) => [a, permits(role, credential, a)])) as Record<Action, boolean>;
}

/**
 * The scopes each role's members may put on a personal token, as Sentry's role definitions list
 * them, cut to what the role can do here: read scopes for everyone (they never change anything and
 * tools ask for them), a write or admin scope only where the role passes a row it opens. A token
 * never acts beyond its creator's current role anyway; this is what the form offers and the API accepts.
 */
const ROLE_SCOPES: Record<Role, readonly TokenScope[]> = {
  viewer: ["org:read", "project:read", "event:read", "member:read", "team:read", "alerts:read"],
  member: [
    "org:read",
    "project:read",
    "project:releases",
    "event:read",
    "event:write",
    "member:read",
    "org:ci",
    "team:read",
    "alerts:read",
  ],
  admin: [
    ...([
      "org:read",
      "project:read",
      "project:write",
      "project:releases",
      "event:read",
      "event:write",
      "member:read",
      "member:write",
    ] as const),
    ...([
      "org:ci",
      "project:admin",
      "team:read",
      "team:write",
      "team:admin",
      "member:invite",
      "event:admin",
      "alerts:read",
      "alerts:write",
    ] as const),
  ],
  owner: TOKEN_SCOPES,
};

/** The scopes a role's members may give a personal token (in the vocabulary's order). */
export function scopesForRole(role: Role): TokenScope[] {
  return TOKEN_SCOPES.filter((s) => ROLE_SCOPES[role].includes(s));
}

/**
 * Sentry's `access` (on organizations, projects and teams): the scopes the caller acts with here —
 * what the role grants, narrowed to the token's scopes when a personal token calls, to what the
 * CI rows grant the role when an organization token does.
 */
export function accessScopes(role: Role, credential: Credential): TokenScope[] {
  const granted = scopesForRole(role);
  if (credential.kind === "session") return granted;
  if (credential.kind === "user-token") {
    const has = expandScopes(credential.scopes);
    return granted.filter((s) => has.includes(s));
  }
  const ci = new Set<string>(ACTIONS.filter((a) => permits(role, credential, a)).flatMap((a) => PERMISSIONS[a].scopes.slice(0, 1)));
  return granted.filter((s) => ci.has(s));
}

/**
 * What a token can do, in the table's words, for the token pages: the actions it passes with
 * `role` (the creator's current role in that organization; for a personal token, the highest).
 */
export function tokenAbilities(role: Role | null, credential: Exclude<Credential, { kind: "session" }>): string[] {
  if (!role) return [];
  return ACTIONS.filter((a) => permits(role, credential, a)).map((a) => PERMISSIONS[a].what);
}

/**
 * The README's role table (between `<!-- role-table -->` markers), rendered from this table; a
 * unit test (permissions.test.ts) fails when the README says anything else.
 */
export function roleTableMarkdown(): string {
  const rows = ACTIONS.map((a) => {
    const p: Permission = PERMISSIONS[a];
    const scopes = [...p.scopes, ...(p.ci ? [ORG_TOKEN_SCOPE] : [])];
    const tokens = p.sessionOnly ? "browser only" : scopes.map((s) => `\`${s}\``).join(", ");
    return `| ${p.what} | ${p.role} | ${tokens} | \`${a}\` |`;
  });
  return ["| who may … | least role | token scopes (any one) | action |", "|---|---|---|---|", ...rows].join("\n");
}
