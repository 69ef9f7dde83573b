/**
 * CODEOWNERS (issue 30): files pasted in the ownership settings or posted through Sentry's
 * `…/projects/{org}/{project}/codeowners/` (`raw`, optional `codeMappingId`), and the
 * organization's external names (`@acme/payments` → #payments, `@pat` → a member) set in the
 * settings page or through Sentry's `external-teams` / `external-users`. A file is parsed whole
 * before anything is stored (a bad line or an oversized file stores nothing); names without a
 * mapping are answered as Sentry's `errors.missing_external_*` and listed on the page.
 */

import { AppError } from "../../core/errors";
import { type CodeownersEntry, externalNamesOf, MAX_CODEOWNERS_CHARS, parseCodeowners } from "../../core/ownership/codeowners";
import type { Db } from "../../storage/db";
import { writeTx } from "../../storage/dialect";
import { listMembers } from "../../storage/members/members";
import { listTeams } from "../../storage/members/teams";
import {
  type CodeownersRow,
  deleteCodeowners,
  deleteExternalName,
  type ExternalNameRow,
  listCodeowners,
  listExternalNames,
  saveCodeowners,
  upsertExternalName,
} from "../../storage/ownership/codeowners";
import { type Access, requirePermission } from "../access/access";
import type { OrgSummary, Viewer } from "../types";

export interface SentryCodeowners {
  id: string;
  raw: string;
  dateCreated: string;
  dateUpdated: string;
  codeMappingId: string | null;
  provider: string;
  ownershipSyntax: string;
  errors: {
    missing_external_teams: string[];
    missing_external_users: string[];
    missing_user_emails: string[];
    teams_without_access: string[];
    users_without_access: string[];
  };
}

export interface ExternalNameView {
  id: string;
  externalName: string;
  provider: string;
  /** what it maps to: `#payments` or a member's email */
  target: string;
  teamId: string | null;
  userId: string | null;
}

export interface CodeownersPage {
  canManage: boolean;
  files: SentryCodeowners[];
  /** every handle the files name, with what it maps to (null: unmatched) */
  handles: Array<{ name: string; target: string | null; mappingId: string | null }>;
  /** emails in the files that are no member's */
  unknownEmails: string[];
  teams: string[];
  members: Array<{ id: string; email: string }>;
}

export interface CodeownersServices {
  page(viewer: Viewer, orgSlug: string, projectSlug: string): Promise<CodeownersPage>;
  list(viewer: Viewer, orgSlug: string, projectSlug: string): Promise<SentryCodeowners[]>;
  /** Sentry's POST: `raw` (required), `codeMappingId` (optional); the file of that mapping is replaced. */
  save(viewer: Viewer, orgSlug: string, projectSlug: string, body: unknown): Promise<{ created: boolean; file: SentryCodeowners }>;
  remove(viewer: Viewer, orgSlug: string, projectSlug: string, id: number): Promise<void>;
  /** Sentry's external-teams / external-users POST, or the settings page: `externalName` → `teamId`/`teamSlug` or `userId`/`userEmail`. */
  mapName(viewer: Viewer, orgSlug: string, body: unknown): Promise<ExternalNameView>;
  unmapName(viewer: Viewer, orgSlug: string, id: number): Promise<void>;
  externalNames(viewer: Viewer, orgSlug: string): Promise<ExternalNameView[]>;
}

export interface CodeownersDeps {
  db: Db;
  now: () => number;
  membershipOrThrow(viewer: Viewer, orgSlug: string): Promise<OrgSummary>;
  projectOrThrow: Access["projectOrThrow"];
}

const iso = (ms: number) => new Date(ms).toISOString();
const HANDLE = /^@[A-Za-z0-9][A-Za-z0-9_.\-/]{0,199}$/;

function bad(field: string, message: string): AppError {
  return new AppError("validation_failed", `${field}: ${message}`, { fields: [{ field, rule: "codeowners", message }] });
}

function nameView(x: ExternalNameRow): ExternalNameView {
  return {
    id: String(x.id),
    externalName: x.externalName,
    provider: x.provider,
    target: x.teamSlug ? `#${x.teamSlug}` : (x.userEmail ?? "(gone)"),
    teamId: x.teamId === null ? null : String(x.teamId),
    userId: x.userId,
  };
}

export function createCodeownersServices(deps: CodeownersDeps): CodeownersServices {
  const { db, now, membershipOrThrow, projectOrThrow } = deps;

  const projectOf = (viewer: Viewer, orgSlug: string, projectSlug: string, write: boolean) =>
    projectOrThrow(viewer, orgSlug, projectSlug, write ? "project.write" : "project.read");

  /** Sentry's shape of a file, with the names this organization cannot place. */
  async function shape(orgId: number, files: CodeownersRow[]): Promise<SentryCodeowners[]> {
    const names = new Map((await listExternalNames(db, orgId)).map((x) => [x.externalName, x]));
    const memberEmails = new Set((await listMembers(db, orgId)).map((m) => m.email.toLowerCase()));
    return files.map((f) => {
      const entries = parseCodeowners(f.raw).entries;
      const handles = externalNamesOf(entries).filter((h) => !names.has(h));
      const emails = [...new Set(entries.flatMap((e) => e.owners.filter((o) => !o.startsWith("@")).map((o) => o.toLowerCase())))];
      return {
        id: String(f.id),
        raw: f.raw,
        dateCreated: iso(f.createdAt),
        dateUpdated: iso(f.updatedAt),
        codeMappingId: f.codeMappingId,
        provider: "github",
        ownershipSyntax: syntaxOf(entries),
        errors: {
          missing_external_teams: handles.filter((h) => h.includes("/")),
          missing_external_users: handles.filter((h) => !h.includes("/")),
          missing_user_emails: emails.filter((e) => !memberEmails.has(e)),
          teams_without_access: [],
          users_without_access: [],
        },
      };
    });
  }

  return {
    async page(viewer, orgSlug, projectSlug) {
      const { org, project } = await projectOf(viewer, orgSlug, projectSlug, false);
      const files = await listCodeowners(db, project.id);
      const entries = files.flatMap((f) => parseCodeowners(f.raw).entries);
      const names = new Map((await listExternalNames(db, org.id)).map((x) => [x.externalName, x]));
      const members = await listMembers(db, org.id);
      const memberEmails = new Set(members.map((m) => m.email.toLowerCase()));
      const emails = [...new Set(entries.flatMap((e) => e.owners.filter((o) => !o.startsWith("@")).map((o) => o.toLowerCase())))];
      return {
        canManage: org.role === "owner" || org.role === "admin",
        files: await shape(org.id, files),
        handles: externalNamesOf(entries).map((h) => {
          const x = names.get(h);
          return { name: h, target: x ? nameView(x).target : null, mappingId: x ? String(x.id) : null };
        }),
        unknownEmails: emails.filter((e) => !memberEmails.has(e)),
        teams: (await listTeams(db, org.id)).map((t) => t.slug),
        members: members.map((m) => ({ id: m.userId, email: m.email })),
      };
    },

    async list(viewer, orgSlug, projectSlug) {
      const { org, project } = await projectOf(viewer, orgSlug, projectSlug, false);
      return shape(org.id, await listCodeowners(db, project.id));
    },

    async save(viewer, orgSlug, projectSlug, input) {
      const { org, project } = await projectOf(viewer, orgSlug, projectSlug, true);
      if (typeof input !== "object" || input === null || Array.isArray(input)) throw bad("body", "send a JSON object");
      const body = input as Record<string, unknown>;
      if (typeof body.raw !== "string") throw bad("raw", "send the CODEOWNERS file's text");
      if (body.raw.length > MAX_CODEOWNERS_CHARS)
        throw new AppError(
          "payload_too_large",
          `The CODEOWNERS file is ${body.raw.length.toLocaleString("en")} characters; at most ${MAX_CODEOWNERS_CHARS.toLocaleString("en")} are accepted. Nothing was saved.`,
          { fields: [{ field: "raw", rule: "max_length", message: `at most ${MAX_CODEOWNERS_CHARS.toLocaleString("en")} characters` }] },
        );
      const mappingId = body.codeMappingId === undefined || body.codeMappingId === null ? null : String(body.codeMappingId);
      if (mappingId !== null && !/^[\w-]{1,64}$/.test(mappingId)) throw bad("codeMappingId", "an id of letters, digits, - and _");
      const { errors } = parseCodeowners(body.raw);
      if (errors.length > 0) {
        const first = errors[0] as { line: number; message: string };
        throw new AppError("validation_failed", `${first.line > 0 ? `line ${first.line}: ` : ""}${first.message}`, {
          fields: errors.slice(0, 50).map((e) => ({
            field: e.line > 0 ? `raw.${e.line}` : "raw",
            rule: "codeowners",
            message: `${e.line > 0 ? `line ${e.line}: ` : ""}${e.message}`,
          })),
        });
      }
      const { row, created } = await writeTx(db, (tx) =>
        saveCodeowners(tx, { projectId: project.id, raw: body.raw as string, codeMappingId: mappingId }, now()),
      );
      return { created, file: (await shape(org.id, [row]))[0] as SentryCodeowners };
    },

    async remove(viewer, orgSlug, projectSlug, id) {
      const { project } = await projectOf(viewer, orgSlug, projectSlug, true);
      const gone = Number.isSafeInteger(id) && (await writeTx(db, (tx) => deleteCodeowners(tx, project.id, id)));
      if (!gone) throw new AppError("not_found", "CODEOWNERS file not found.");
    },

    async mapName(viewer, orgSlug, input) {
      const org = await membershipOrThrow(viewer, orgSlug);
      requirePermission(viewer, org, "team.write");
      if (typeof input !== "object" || input === null || Array.isArray(input)) throw bad("body", "send a JSON object");
      const body = input as Record<string, unknown>;
      const name = typeof body.externalName === "string" ? body.externalName.trim() : "";
      if (!HANDLE.test(name)) throw bad("externalName", "a handle such as @pat or @acme/payments");
      const provider = body.provider === undefined || body.provider === null ? "github" : String(body.provider);
      if (provider !== "github" && provider !== "gitlab") throw bad("provider", "github or gitlab");
      let teamId: number | null = null;
      let userId: string | null = null;
      if (body.teamId !== undefined || body.teamSlug !== undefined) {
        const teams = await listTeams(db, org.id);
        const t = teams.find((x) => String(x.id) === String(body.teamId ?? "") || x.slug === body.teamSlug);
        if (!t) throw bad(body.teamId !== undefined ? "teamId" : "teamSlug", "no team of this organization");
        teamId = t.id;
      } else if (body.userId !== undefined || body.userEmail !== undefined) {
        const members = await listMembers(db, org.id);
        const email = typeof body.userEmail === "string" ? body.userEmail.toLowerCase() : undefined;
        const m = members.find((x) => x.userId === String(body.userId ?? "") || x.email.toLowerCase() === email);
        if (!m) throw bad(body.userId !== undefined ? "userId" : "userEmail", "no member of this organization");
        userId = m.userId;
      } else throw bad("teamId", "map the name to a team (teamId) or a member (userId)");
      await writeTx(db, (tx) => upsertExternalName(tx, { orgId: org.id, provider, externalName: name, teamId, userId }, now()));
      const row = (await listExternalNames(db, org.id)).find((x) => x.externalName === name.toLowerCase());
      return nameView(row as ExternalNameRow);
    },

    async unmapName(viewer, orgSlug, id) {
      const org = await membershipOrThrow(viewer, orgSlug);
      requirePermission(viewer, org, "team.write");
      const gone = Number.isSafeInteger(id) && (await writeTx(db, (tx) => deleteExternalName(tx, org.id, id)));
      if (!gone) throw new AppError("not_found", "External name not found.");
    },

    async externalNames(viewer, orgSlug) {
      const org = await membershipOrThrow(viewer, orgSlug);
      requirePermission(viewer, org, "org.read");
      return (await listExternalNames(db, org.id)).map(nameView);
    },
  };
}

/** The file as Sentry's ownership syntax (`codeowners:<pattern> <owners>`), for its `ownershipSyntax`. */
function syntaxOf(entries: CodeownersEntry[]): string {
  return entries.map((e) => `codeowners:${e.pattern} ${e.owners.join(" ")}`.trim()).join("\n");
}
