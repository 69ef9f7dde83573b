/**
 * Builds the application services over one database and one auth instance. Authorization is
 * decided here for every read and write: the viewer must be a member of the organization, API
 * tokens must carry the scope, and nothing crosses organizations.
 */
import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import type { Config } from "../config";
import { limitDepth, MAX_EVENT_DEPTH } from "../core/bounded-json";
import { AppError } from "../core/errors";
import { statusDetailsOf } from "../core/issue-state/update-input";
import { emailSchema, nameSchema, passwordSchema, slugify, slugSchema, validate } from "../core/validation";
import { formatDsn } from "../ingest/compat/dsn";
import type { Logger } from "../log";
import { createMailer } from "../net/mailer";
import type { Db } from "../storage/db";
import { writeTx } from "../storage/dialect";
import { getEvent, getLatestEvent } from "../storage/events";
import { getIssue, type IssueRow } from "../storage/issues";
import { isMigrated } from "../storage/migrate";
import { countOrgs, findMembership, findOrgBySlug, insertOrg, listMemberships, upsertMember } from "../storage/orgs";
import {
  findProjectById,
  findProjectBySlug,
  insertKey,
  insertProject,
  listKeys,
  listProjectsOfOrg,
  type ProjectRow,
} from "../storage/projects";
import { isStorageUnavailable, storageHealth } from "../storage/storage-health";
import { addToDefaultTeam, visibleProjectIds } from "../storage/teams";
import { findTokenByHash, findUserProfile, insertToken, touchToken } from "../storage/tokens";
import { createAccountServices } from "./account-service";
import { createAlertServices } from "./alert-service";
import { createArtifactServices } from "./artifact-service";
import { type Auth, createUserWithPassword, findUserByEmail, revokeSessionToken, revokeUserSessions, setUserPassword } from "./auth";
import { createAuthRequests } from "./auth-requests";
import { createDigestServices, withIssueFlags } from "./digest-service";
import { createEventApi } from "./event-api";
import { createFeedbackServices } from "./feedback-service";
import { createIngestDataServices } from "./ingest-data-services";
import { assigneeProfile, assigneeProfiles, createIssueActions } from "./issue-actions";
import { createIssueBulk } from "./issue-bulk";
import { createIssueRedirects } from "./issue-redirects";
import { createIssueStream } from "./issue-stream";
import { createIssueUnmerge } from "./issue-unmerge";
import { createLoginThrottle } from "./login-throttle";
import { createMemberServices } from "./member-service";
import { createMonitorServices } from "./monitor-service";
import { createOrganization } from "./org-create";
import { createPasswordResetServices } from "./password-reset-service";
import { createProjectAdmin } from "./project-admin";
import { createReleaseApi } from "./release-api";
import { createReleaseServices } from "./release-service";
import type { AppServices } from "./services";
import { createSsoServices } from "./sso-service";
import { createStatsApi } from "./stats-api";
import { createTeamServices } from "./team-service";
import { createTokenServices } from "./token-service";
import { createTraceServices } from "./trace-service";
import type { EventDetail, IssueDetail, IssueSummary, OrgSummary, ProjectSummary, Role, Viewer } from "./types";
import { createUptimeServices } from "./uptime-service";
import { createUserFeedbackApi } from "./user-feedback-api";
import { canSeeProject, visibleProjects } from "./visibility";

export const SCOPES = [
  "org:read",
  "project:read",
  "project:write",
  "project:releases",
  "event:read",
  "event:write",
  "member:read",
  "member:write",
] as const;

export interface OperatorServices {
  /** CLI: create a user (or reset the password of an existing one) as owner of an org (created when missing). */
  createOwner(input: {
    email: string;
    password: string;
    orgSlug: string;
    name?: string;
  }): Promise<{ userId: string; orgSlug: string; created: boolean }>;
  createProject(input: { orgSlug: string; name: string; platform?: string }): Promise<{ project: ProjectRow; dsn: string }>;
  createToken(input: { email: string; scopes: string[]; name?: string }): Promise<{ token: string }>;
}

export function createServices(deps: {
  db: Db;
  auth: Auth;
  config: Config;
  log: Logger;
  now?: () => number;
}): AppServices & { operator: OperatorServices } {
  const { db, auth, config } = deps;
  const now = deps.now ?? Date.now;

  async function membershipOrThrow(viewer: Viewer, orgSlug: string): Promise<OrgSummary> {
    const found = await findMembership(db, viewer.userId, orgSlug);
    // An organization token works in its organization only.
    const m = found && (viewer.tokenOrgId == null || viewer.tokenOrgId === found.id) ? found : undefined;
    // Same answer for "no such org" and "not a member": never reveal another tenant's existence.
    if (!m) throw new AppError("not_found", "Organization not found.");
    const restricted = m.role === "member" || m.role === "viewer";
    const visible = restricted ? await visibleProjectIds(db, m.id, viewer.userId) : null;
    return { id: m.id, slug: m.slug, name: m.name, role: m.role, visibleProjectIds: visible };
  }

  function requireScope(viewer: Viewer, scope: string): void {
    if (viewer.scopes && !viewer.scopes.includes(scope)) throw new AppError("forbidden", `This token lacks the "${scope}" scope.`);
  }

  async function projectSummary(p: ProjectRow): Promise<ProjectSummary> {
    const key = (await listKeys(db, p.id)).find((k) => k.active);
    return {
      id: p.id,
      slug: p.slug,
      name: p.name,
      platform: p.platform,
      dsn: key ? formatDsn(config.publicUrl, key.publicKey, p.id) : null,
    };
  }

  /** The one place projects are resolved for a viewer: the org's, narrowed to their teams'. */
  async function projectMap(org: OrgSummary): Promise<Map<number, ProjectRow>> {
    return new Map(visibleProjects(org, await listProjectsOfOrg(db, org.id)).map((p) => [p.id, p]));
  }

  function toSummary(row: IssueRow, projects: Map<number, ProjectRow>): IssueSummary {
    const project = projects.get(row.projectId);
    const slug = project?.slug ?? "unknown";
    return {
      id: row.id,
      shortId: `${slug.toUpperCase()}-${row.shortId}`,
      projectId: row.projectId,
      projectSlug: slug,
      title: row.title,
      culprit: row.culprit,
      type: row.type,
      level: row.level,
      status: row.status as IssueSummary["status"],
      substatus: row.substatus,
      count: row.eventCount,
      userCount: row.userCount,
      firstSeen: row.firstSeen,
      lastSeen: row.lastSeen,
      metadata: row.metadata,
      assigneeUserId: row.assigneeUserId,
      statusDetails: statusDetailsOf(row),
      platform: project?.platform,
    };
  }

  async function issueInOrg(viewer: Viewer, orgSlug: string, issueId: number) {
    const org = await membershipOrThrow(viewer, orgSlug);
    const issue = Number.isSafeInteger(issueId) ? await getIssue(db, issueId) : undefined;
    const projects = await projectMap(org);
    if (!issue || !projects.has(issue.projectId)) throw new AppError("not_found", "Issue not found.");
    return { org, issue, projects };
  }

  async function issueDetail(issue: IssueRow, projects: Map<number, ProjectRow>): Promise<IssueDetail> {
    return {
      ...toSummary(issue, projects),
      firstRelease: issue.firstRelease,
      lastRelease: issue.lastRelease,
      firstEventId: issue.firstEventId,
      lastEventId: issue.lastEventId,
      statusDetails: statusDetailsOf(issue),
      resolution: issue.resolution,
      ignore: issue.ignore,
      resolvedAt: issue.resolvedAt,
      assignee: await assigneeProfile(db, issue.assigneeUserId),
    };
  }

  const issueStream = createIssueStream({
    db,
    now,
    membership: membershipOrThrow,
    requireScope,
    projectsOf: projectMap,
    toSummary,
    toDetail: issueDetail,
    toEventDetail: (ev, projects) => toEventDetail(ev, projects),
  });

  const admin = createProjectAdmin({ db, config, now, membershipOrThrow, requireScope, projectSummary });

  function hashToken(token: string): string {
    return createHash("sha256").update(token).digest("hex");
  }

  const sso = createSsoServices({ db, auth, config, log: deps.log, now, membershipOrThrow });

  const services: AppServices & { operator: OperatorServices } = {
    auth,
    publicUrl: config.publicUrl,
    log: deps.log,
    flags: { testRoutes: config.testRoutes },

    setup: {
      isDone: async () => (await countOrgs(db)) > 0,
      async createOwner(input) {
        const v = validate(
          z.object({ name: nameSchema, email: emailSchema, password: passwordSchema, orgName: nameSchema, orgSlug: slugSchema }),
          input,
        );
        if ((await countOrgs(db)) > 0) throw new AppError("setup_done");
        if (await findUserByEmail(auth, v.email))
          throw new AppError("conflict", "A user with this email exists.", {
            fields: [{ field: "email", rule: "unique", message: "already registered" }],
          });
        const user = await createUserWithPassword(auth, { email: v.email, password: v.password, name: v.name });
        await writeTx(db, async (tx) => {
          const org = await insertOrg(tx, { slug: v.orgSlug, name: v.orgName, now: now() });
          await upsertMember(tx, { orgId: org.id, userId: user.id, role: "owner", now: now() });
        });
        return { orgSlug: v.orgSlug, userId: user.id };
      },
    },

    session: {
      async viewerFromHeaders(headers) {
        const session = await auth.api.getSession({ headers });
        if (!session) return null;
        return { userId: session.user.id, email: session.user.email, name: session.user.name };
      },
      async viewerFromToken(authorization) {
        const m = authorization?.match(/^Bearer\s+(\S+)$/i);
        if (!m) return null;
        const token = await findTokenByHash(db, hashToken(m[1] as string));
        if (!token || (token.expiresAt !== null && token.expiresAt < now())) return null;
        const user = await findUserProfile(db, token.userId);
        if (!user) return null;
        // Last-used bookkeeping must never fail the request.
        touchToken(db, token.id, now()).catch(() => {});
        return { userId: user.id, email: user.email, name: user.name, scopes: token.scopes, tokenOrgId: token.orgId };
      },
    },

    orgs: {
      async listForViewer(viewer) {
        return (await listMemberships(db, viewer.userId))
          .filter((m) => viewer.tokenOrgId == null || m.id === viewer.tokenOrgId)
          .map((m) => ({ id: m.id, slug: m.slug, name: m.name, role: m.role }));
      },
      async get(viewer, orgSlug) {
        requireScope(viewer, "org:read");
        return membershipOrThrow(viewer, orgSlug);
      },
      create: (viewer, input) => createOrganization(db, now, viewer, input),
    },

    projects: {
      async list(viewer, orgSlug) {
        requireScope(viewer, "project:read");
        const org = await membershipOrThrow(viewer, orgSlug);
        return Promise.all([...(await projectMap(org)).values()].map(projectSummary));
      },
      async get(viewer, orgSlug, projectSlug) {
        requireScope(viewer, "project:read");
        const org = await membershipOrThrow(viewer, orgSlug);
        const p = await findProjectBySlug(db, org.id, projectSlug);
        if (!p || !canSeeProject(org, p.id)) throw new AppError("not_found", "Project not found.");
        return projectSummary(p);
      },
      ...admin.projects,
    },

    keys: admin.keys,
    releases: createReleaseServices({ db, now, membershipOrThrow, projectsOf: projectMap, toSummary }),
    feedback: createFeedbackServices({ db, membershipOrThrow, requireScope, projectsOf: projectMap }),
    monitors: createMonitorServices({ db, now, membershipOrThrow, requireScope, projectsOf: projectMap }),
    uptime: createUptimeServices({ db, now, membershipOrThrow, requireScope, projectsOf: projectMap }),

    issues: {
      // The stream's search (src/server/issue-stream.ts), without its default status or sparklines,
      // with assignees' profiles (Sentry's list carries assignedTo).
      async list(viewer, orgSlug, q) {
        const page = await issueStream.search(viewer, orgSlug, q);
        const profiles = await assigneeProfiles(
          db,
          page.items.flatMap((i) => (i.assigneeUserId ? [i.assigneeUserId] : [])),
        );
        return {
          ...page,
          items: page.items.map((i) => ({ ...i, assignee: i.assigneeUserId ? (profiles.get(i.assigneeUserId) ?? null) : null })),
        };
      },
      async get(viewer, orgSlug, issueId) {
        requireScope(viewer, "event:read");
        const { issue, projects } = await issueInOrg(viewer, orgSlug, issueId);
        const [detail] = await withIssueFlags(db, [await issueDetail(issue, projects)]);
        return detail as IssueDetail;
      },
    },

    events: {
      async latestForIssue(viewer, orgSlug, issueId) {
        requireScope(viewer, "event:read");
        const { issue, projects } = await issueInOrg(viewer, orgSlug, issueId);
        const ev = await getLatestEvent(db, issue.id);
        if (!ev) return null;
        return toEventDetail(ev, projects);
      },
      async get(viewer, orgSlug, projectSlug, eventId) {
        requireScope(viewer, "event:read");
        const org = await membershipOrThrow(viewer, orgSlug);
        const found = await findProjectBySlug(db, org.id, projectSlug);
        const p = found && canSeeProject(org, found.id) ? found : undefined;
        const id = eventId.replace(/-/g, "").toLowerCase();
        const ev = p && /^[0-9a-f]{32}$/.test(id) ? await getEvent(db, p.id, id) : undefined;
        if (!p || !ev) throw new AppError("not_found", "Event not found.");
        return toEventDetail(ev, new Map([[p.id, p]]));
      },
    },

    issueStream,

    issueActions: createIssueActions({
      db,
      now,
      lifecycle: config.lifecycle,
      membership: membershipOrThrow,
      requireScope,
      projectsOf: projectMap,
      toDetail: issueDetail,
    }),

    digests: createDigestServices({ db, membershipOrThrow, requireScope }),
    traces: createTraceServices({
      db,
      requireScope,
      issueProject: async (viewer, orgSlug, issueId) => (await issueInOrg(viewer, orgSlug, issueId)).issue.projectId,
    }),
    issueRedirects: createIssueRedirects({ db, membershipOrThrow, requireScope, projectsOf: projectMap }),
    issueUnmerge: createIssueUnmerge({ db, now, membershipOrThrow, requireScope, projectsOf: projectMap }),

    ...createIngestDataServices({ db, membershipOrThrow, requireScope }),
    artifacts: createArtifactServices({
      db,
      config: config.sourcemaps,
      publicUrl: config.publicUrl,
      log: deps.log,
      now,
      membershipOrThrow,
    }),
    alerts: createAlertServices({ db, now, membershipOrThrow, requireScope }),

    eventApi: createEventApi({
      db,
      requireScope,
      getIssue: (viewer, orgSlug, issueId) => services.issues.get(viewer, orgSlug, issueId),
      getProject: (viewer, orgSlug, projectSlug) => services.projects.get(viewer, orgSlug, projectSlug),
    }),
    statsApi: createStatsApi({
      db,
      now,
      requireScope,
      membershipOrThrow,
      projectsOf: projectMap,
      getProject: (viewer, orgSlug, projectSlug) => services.projects.get(viewer, orgSlug, projectSlug),
    }),
    userFeedbackApi: createUserFeedbackApi({
      db,
      now,
      membershipOrThrow,
      requireScope,
      getProject: (viewer, orgSlug, projectSlug) => services.projects.get(viewer, orgSlug, projectSlug),
    }),
    releaseApi: createReleaseApi({ db, now, membershipOrThrow, projectsOf: projectMap }),
    // Late-bound: the bulk selection searches and acts through the services built here.
    issueBulk: createIssueBulk({
      search: (viewer, orgSlug, q) => services.issues.list(viewer, orgSlug, q),
      actions: { bulkUpdate: (...a) => services.issueActions.bulkUpdate(...a), delete: (...a) => services.issueActions.delete(...a) },
      membershipOrThrow,
      requireScope,
      now,
    }),

    members: createMemberServices({
      db,
      auth,
      publicUrl: config.publicUrl,
      invitationDays: config.invitationDays,
      mailer: createMailer(config.smtp),
      now,
      membershipOrThrow,
      requireScope,
    }),

    teams: createTeamServices({ db, now, membershipOrThrow, requireScope }),
    account: createAccountServices({ auth }),
    passwordReset: createPasswordResetServices({
      db,
      auth,
      mailer: createMailer(config.smtp),
      publicUrl: config.publicUrl,
      validMinutes: config.passwordResetMinutes,
      log: deps.log,
      now,
    }),
    tokens: createTokenServices({ db, publicUrl: config.publicUrl, now, membershipOrThrow }),
    health: {
      async ready() {
        try {
          const migrations = await isMigrated(db);
          // Reads work while another process holds SQLite's write lock: probe writability too.
          const writable = await storageHealth(db).check(deps.log);
          return { ok: migrations && writable, database: true, migrations, writable };
        } catch {
          return { ok: false, database: false, migrations: false, writable: false };
        }
      },
      storageFailed(err) {
        if (!isStorageUnavailable(err)) return false;
        storageHealth(db).failed(err, deps.log);
        return true;
      },
    },

    authRequests: createAuthRequests({
      handler: (req) => auth.handler(req),
      throttle: createLoginThrottle({ db, config, now }),
      passwordSignInRefusal: (email) => sso.passwordSignInRefusal(email),
      revokeSession: (token) => revokeSessionToken(auth, token),
    }),
    sso,

    operator: {
      async createOwner(input) {
        const email = validate(emailSchema, input.email);
        const password = validate(passwordSchema, input.password);
        const orgSlug = validate(slugSchema, input.orgSlug);
        let user = await findUserByEmail(auth, email);
        const created = !user;
        if (!user) {
          const u = await createUserWithPassword(auth, { email, password, name: input.name ?? email.split("@")[0] ?? email });
          user = { id: u.id, email, name: input.name ?? email };
        } else {
          await setUserPassword(auth, user.id, password);
          // A reset must lock out whoever had the old password (issue 9).
          await revokeUserSessions(auth, user.id);
        }
        const userId = user.id;
        await writeTx(db, async (tx) => {
          const org = (await findOrgBySlug(tx, orgSlug)) ?? (await insertOrg(tx, { slug: orgSlug, name: orgSlug, now: now() }));
          await upsertMember(tx, { orgId: org.id, userId, role: "owner", now: now() });
        });
        return { userId, orgSlug, created };
      },
      async createProject(input) {
        const name = validate(nameSchema, input.name);
        const org = await findOrgBySlug(db, validate(slugSchema, input.orgSlug));
        if (!org) throw new AppError("not_found", `No organization "${input.orgSlug}".`);
        const slug = slugify(name);
        if (await findProjectBySlug(db, org.id, slug)) throw new AppError("conflict", `Project "${slug}" already exists in ${org.slug}.`);
        const project = await writeTx(db, async (tx) => {
          const p = await insertProject(tx, { orgId: org.id, slug, name, platform: input.platform ?? "other", now: now() });
          await insertKey(tx, { projectId: p.id, publicKey: randomBytes(16).toString("hex"), label: "Default", now: now() });
          await addToDefaultTeam(tx, org.id, { projectId: p.id });
          return p;
        });
        const key = (await listKeys(db, project.id))[0];
        return { project, dsn: formatDsn(config.publicUrl, key?.publicKey ?? "", project.id) };
      },
      async createToken(input) {
        const user = await findUserByEmail(auth, validate(emailSchema, input.email));
        if (!user) throw new AppError("not_found", `No user with email ${input.email}.`);
        const unknown = input.scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
        if (unknown.length > 0)
          throw new AppError("validation_failed", `Unknown scopes: ${unknown.join(", ")} (known: ${SCOPES.join(", ")}).`);
        const token = `errata_${randomBytes(24).toString("base64url")}`;
        await insertToken(db, {
          userId: user.id,
          orgId: null,
          name: input.name ?? "CLI token",
          tokenHash: hashToken(token),
          tokenPrefix: token.slice(0, 12),
          scopes: input.scopes,
          now: now(),
        });
        return { token };
      },
    },
  };
  return services;

  function toEventDetail(ev: NonNullable<Awaited<ReturnType<typeof getEvent>>>, projects: Map<number, ProjectRow>): EventDetail {
    return {
      eventId: ev.eventId,
      issueId: ev.issueId,
      projectId: ev.projectId,
      projectSlug: projects.get(ev.projectId)?.slug ?? "unknown",
      receivedAt: ev.receivedAt,
      // Depth-bounded: events stored before the normaliser bounded depth would overflow rendering.
      event: limitDepth(ev.event, MAX_EVENT_DEPTH).value as Record<string, unknown>,
    };
  }
}

export type { Role };
export { findProjectById };
