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
 *    organization takes it with them).
 * Session-only actions (tokens, single sign-on) refuse every token.
 */
import { TOKEN_SCOPES } from "../../core/token-scopes";
import type { Role } from "../types";

export type TokenScope = (typeof TOKEN_SCOPES)[number];

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
  "project.read": { role: "viewer", scopes: ["project:read"], what: "see projects, their settings, alert rules and monitors" },
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
  "issue.delete": { role: "admin", scopes: ["event:write"], what: "delete issues" },
  "replay.delete": { role: "admin", scopes: ["event:write"], what: "delete session replays" },
  "project.write": { role: "admin", scopes: ["project:write"], what: "create projects and change their settings" },
  "key.write": { role: "admin", scopes: ["project:write"], what: "create, disable, rename and delete DSN keys" },
  "team.read": { role: "admin", scopes: ["project:read"], what: "see the teams settings" },
  "team.write": { role: "admin", scopes: ["project:write"], what: "manage teams" },
  "alert.write": { role: "admin", scopes: ["project:write"], what: "change alert rules and channels" },
  "monitor.write": { role: "admin", scopes: ["project:write"], what: "create and change cron and uptime monitors" },
  "stats.outcomes": { role: "admin", scopes: ["project:read"], what: "read a project's ingest outcome counters" },
  "member.invite": { role: "admin", scopes: ["member:write"], what: "invite people and manage invitations" },
  "orgtoken.manage": { role: "admin", scopes: [], sessionOnly: true, what: "manage organization tokens" },
  "sso.read": { role: "admin", scopes: [], sessionOnly: true, what: "see single sign-on settings" },
  // Owners: who is in charge.
  "member.admin": { role: "owner", scopes: ["member:write"], what: "change roles, remove members and invite owners" },
  "sso.write": { role: "owner", scopes: [], sessionOnly: true, what: "change single sign-on" },
  "org.import": { role: "owner", scopes: [], sessionOnly: true, what: "import an organization from Sentry" },
  "audit.read": { role: "owner", scopes: ["member:write"], what: "read the audit log" },
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
  if (credential.kind === "user-token" && !p.scopes.some((s) => credential.scopes.includes(s)))
    return `This token lacks the "${p.scopes[0]}" scope (needed to ${p.what}).`;
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

/** The scopes a role's members may give a personal token (no scope above what the role can use). */
export function scopesForRole(role: Role): TokenScope[] {
  return TOKEN_SCOPES.filter((scope) =>
    ACTIONS.some((a) => {
      const p: Permission = PERMISSIONS[a];
      return !p.sessionOnly && p.scopes[0] === scope && roleAtLeast(role, p.role);
    }),
  );
}

/**
 * Sentry's `access` (on organizations, projects and teams): the scopes the caller acts with here —
 * what the role grants, narrowed to the token's scopes when a personal token calls, to what the
 * CI rows grant the role when an organization token does.
 */
export function accessScopes(role: Role, credential: Credential): TokenScope[] {
  const granted = scopesForRole(role);
  if (credential.kind === "session") return granted;
  if (credential.kind === "user-token") return granted.filter((s) => credential.scopes.includes(s));
  const ci = new Set(ACTIONS.filter((a) => permits(role, credential, a)).map((a) => PERMISSIONS[a].scopes[0]));
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
