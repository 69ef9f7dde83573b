/**
 * Wires the application services over one database and one auth instance. Nothing is decided
 * here: who may see what is src/server/access/access.ts, and each service checks its own reads and
 * writes with it (membership, token scopes, team visibility; nothing crosses organizations).
 */
import path from "node:path";
import type { Config } from "../config";
import { WEBHOOK_POLICY_SETTINGS } from "../core/alerts/types";
import type { Logger } from "../log";
import { createMailer } from "../net/mailer";
import { createBlobStore } from "../storage/blobs/blob-store";
import type { Db } from "../storage/db";
import type { TriageHooks } from "../storage/issues/triage-runs";
import { createAccess } from "./access/access";
import { createAlertServices } from "./alerts/alerts";
import { createAccountServices } from "./auth/account";
import { type Auth, revokeSessionToken } from "./auth/auth";
import { createDeviceCookies } from "./auth/device-cookie";
import { createKnownDeviceLinks } from "./auth/known-device-link";
import { createLoginThrottle } from "./auth/login-throttle";
import { createPasswordResetServices } from "./auth/password-reset";
import { createAuthRequests } from "./auth/requests";
import { createSessionServices } from "./auth/sessions";
import { createSsoServices } from "./auth/sso";
import { createDigestServices } from "./events/digests";
import { createDiscoverApi } from "./events/discover-api";
import { createEventApi } from "./events/event-api";
import { createIngestDataServices } from "./events/ingest-data";
import { createStatsApi } from "./events/stats-api";
import { createTraceServices } from "./events/traces";
import { createFeedbackServices } from "./feedback/inbox";
import { createUserFeedbackApi } from "./feedback/user-feedback-api";
import { createIdentityServices } from "./identity/identity-services";
import { createImportRunServices } from "./import/import-runs";
import { createImportServices } from "./import/sentry-import";
import { createBackupServices } from "./installation/backups";
import { createHealthServices } from "./installation/health";
import { createOperatorServices, type OperatorServices } from "./installation/operator";
import { createSetupServices } from "./installation/setup";
import { createIssueActions } from "./issues/actions";
import { createIssueBulk } from "./issues/bulk";
import { createEventReads, createIssueReads } from "./issues/reads";
import { createIssueRedirects } from "./issues/redirects";
import { toEventDetail, toIssueDetail, toIssueSummary } from "./issues/shapes";
import { createIssueStream } from "./issues/stream";
import { createTrackerServices } from "./issues/trackers";
import { createIssueUnmerge } from "./issues/unmerge";
import { createMemberServices } from "./members/members";
import { createTeamServices } from "./members/teams";
import { createTokenServices } from "./members/tokens";
import { createWeeklySummaryServices } from "./members/weekly-summary";
import { createMonitorServices } from "./monitors/cron";
import { createUptimeServices } from "./monitors/uptime";
import { createProjectAdmin } from "./orgs/project-admin";
import { createOrgServices, createProjectReads } from "./orgs/reads";
import { createCodeownersServices } from "./ownership/codeowners";
import { createOwnershipServices } from "./ownership/ownership";
import { createArtifactServices } from "./releases/artifacts";
import { createReleaseApi } from "./releases/release-api";
import { createReleaseServices } from "./releases/screens";
import { createReplayServices } from "./replays/replays";
import type { AppServices } from "./services";
import { createTraceApi } from "./traces/trace-api";
import { createTracePageServices } from "./traces/trace-page";

export type { OperatorServices };

export function createServices(deps: {
  db: Db;
  auth: Auth;
  config: Config;
  log: Logger;
  now?: () => number;
  /** tests: pause merges and deletes between their chunks (src/server/issues/actions.ts) */
  triageHooks?: TriageHooks;
}): AppServices & { operator: OperatorServices } {
  const { db, auth, config } = deps;
  const now = deps.now ?? Date.now;
  const access = createAccess(db, config);
  const { membershipOrThrow, requireScope, projectMap, projectSummary } = access;
  const issueDetail = (issue: Parameters<typeof toIssueDetail>[1], projects: Parameters<typeof toIssueDetail>[2]) =>
    toIssueDetail(db, issue, projects);
  const mailer = createMailer(config.smtp);
  // The installation secret keys the device cookies (Better Auth holds it: ERRATA_SECRET or generated).
  const devices = createDeviceCookies(auth.options.secret, { secure: config.auth.secureCookies });
  const loginThrottle = createLoginThrottle({ db, config, devices, now });
  const knownDevices = createKnownDeviceLinks({
    db,
    auth,
    mailer,
    devices,
    secret: auth.options.secret,
    publicUrl: config.publicUrl,
    windowMs: Math.max(config.auth.loginWindowSeconds, config.auth.accountLockSeconds) * 1000,
    lockMs: config.auth.accountLockSeconds * 1000,
    log: deps.log,
    now,
  });

  const issueStream = createIssueStream({
    db,
    now,
    membership: membershipOrThrow,
    requireScope,
    projectsOf: projectMap,
    toSummary: toIssueSummary,
    toDetail: issueDetail,
    toEventDetail,
  });
  // Replay segments (and later other big bodies): files beside SQLite, the blobs table on PostgreSQL.
  const blobs = createBlobStore(db, config.dataDir);
  const admin = createProjectAdmin({
    db,
    config,
    now,
    authorize: access.authorize,
    projectOrThrow: access.projectOrThrow,
    requireScope,
    projectSummary,
    blobs,
  });
  const imports = createImportServices({
    db,
    now,
    policy: config.import,
    invitationDays: config.invitationDays,
    authorize: access.authorize,
  });
  const identity = createIdentityServices({ db, auth, config, log: deps.log, now, authorize: access.authorize });
  const sso = createSsoServices({
    db,
    auth,
    config,
    log: deps.log,
    now,
    membershipOrThrow,
    provisioning: identity.provisioning,
    audit: identity.audit,
  });

  const services: AppServices & { operator: OperatorServices } = {
    auth,
    publicUrl: config.publicUrl,
    log: deps.log,
    flags: { testRoutes: config.testRoutes },
    authorize: async (viewer, orgSlug, action) => void (await access.authorize(viewer, orgSlug, action)),

    setup: createSetupServices({ db, auth, now }),
    backups: createBackupServices({ db, backup: config.backup }),
    session: createSessionServices({ db, auth, now }),

    orgs: createOrgServices({ db, now, access }),

    projects: { ...createProjectReads({ db, access }), ...admin.projects },

    keys: admin.keys,
    releases: createReleaseServices({ db, now, membershipOrThrow, projectsOf: projectMap, toSummary: toIssueSummary }),
    feedback: createFeedbackServices({ db, membershipOrThrow, requireScope, projectsOf: projectMap }),
    replays: createReplayServices({ db, access, blobs, now }),
    monitors: createMonitorServices({ db, now, membershipOrThrow, requireScope, projectsOf: projectMap }),
    uptime: createUptimeServices({ db, now, membershipOrThrow, requireScope, projectsOf: projectMap }),
    imports,
    importRuns: createImportRunServices({
      db,
      now,
      imports,
      authorize: access.authorize,
      log: (msg, fields) => deps.log.error(fields, msg),
    }),

    issues: createIssueReads({ db, access, issueStream, now }),

    events: createEventReads({ db, access }),

    issueStream,

    issueActions: createIssueActions({
      db,
      now,
      lifecycle: config.lifecycle,
      membership: membershipOrThrow,
      requireScope,
      projectsOf: projectMap,
      toDetail: issueDetail,
      log: deps.log,
      hooks: deps.triageHooks,
    }),

    digests: createDigestServices({ db, membershipOrThrow, requireScope }),
    traces: createTraceServices({
      db,
      requireScope,
      issueProject: async (viewer, orgSlug, issueId) => (await access.issueInOrg(viewer, orgSlug, issueId)).issue.projectId,
    }),
    tracePages: createTracePageServices({ db, now, membershipOrThrow, projectsOf: projectMap }),
    traceApi: createTraceApi({ db, now, membershipOrThrow, projectsOf: projectMap, projectOrThrow: access.projectOrThrow }),
    issueRedirects: createIssueRedirects({ db, membershipOrThrow, requireScope, projectsOf: projectMap }),
    issueUnmerge: createIssueUnmerge({ db, now, membershipOrThrow, requireScope, projectsOf: projectMap, log: deps.log }),

    ...createIngestDataServices({ db, projectOrThrow: access.projectOrThrow }),
    artifacts: createArtifactServices({
      db,
      config: config.sourcemaps,
      publicUrl: config.publicUrl,
      log: deps.log,
      now,
      membershipOrThrow,
      projectOrThrow: access.projectOrThrow,
      tmpDir: path.join(config.dataDir, "tmp"),
    }),
    alerts: createAlertServices({
      db,
      now,
      membershipOrThrow,
      projectOrThrow: access.projectOrThrow,
      requireScope,
      emailConfigured: config.smtp !== null,
      webhookPolicy: {
        allowPrivate: config.alerts.allowPrivateWebhooks,
        allowHosts: config.alerts.webhookAllowHosts,
        settings: WEBHOOK_POLICY_SETTINGS,
      },
    }),
    ownership: createOwnershipServices({ db, now, membershipOrThrow, projectOrThrow: access.projectOrThrow, requireScope }),
    codeowners: createCodeownersServices({ db, now, membershipOrThrow, projectOrThrow: access.projectOrThrow }),
    trackers: createTrackerServices({ db, now, publicUrl: config.publicUrl, access }),
    weeklySummary: createWeeklySummaryServices({ db, now, mailConfigured: config.smtp !== null }),

    eventApi: createEventApi({
      db,
      requireScope,
      getIssue: (viewer, orgSlug, issueId) => services.issues.get(viewer, orgSlug, issueId),
      getProject: (viewer, orgSlug, projectSlug) => services.projects.get(viewer, orgSlug, projectSlug),
      projectOrThrow: access.projectOrThrow,
    }),
    discover: createDiscoverApi({ db, now, membershipOrThrow, projectsOf: projectMap }),
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
      projectsOf: projectMap,
      getProject: (viewer, orgSlug, projectSlug) => services.projects.get(viewer, orgSlug, projectSlug),
    }),
    releaseApi: createReleaseApi({ db, now, membershipOrThrow, projectsOf: projectMap }),
    // Late-bound: the bulk selection searches and acts through the services built here.
    issueBulk: createIssueBulk({
      search: (viewer, orgSlug, q) => services.issues.list(viewer, orgSlug, q),
      actions: { bulkUpdate: (...a) => services.issueActions.bulkUpdate(...a), delete: (...a) => services.issueActions.delete(...a) },
      membershipOrThrow,
      projectOrThrow: access.projectOrThrow,
      requireScope,
      now,
    }),

    members: createMemberServices({
      db,
      auth,
      publicUrl: config.publicUrl,
      invitationDays: config.invitationDays,
      mailer,
      now,
      membershipOrThrow,
      requireScope,
      throttle: loginThrottle,
      audit: identity.audit,
    }),

    teams: createTeamServices({ db, now, membershipOrThrow, requireScope }),
    account: createAccountServices({ auth }),
    passwordReset: createPasswordResetServices({
      db,
      auth,
      mailer,
      publicUrl: config.publicUrl,
      validMinutes: config.passwordResetMinutes,
      log: deps.log,
      now,
    }),
    tokens: createTokenServices({ db, publicUrl: config.publicUrl, now, membershipOrThrow }),
    health: createHealthServices(db, deps.log),

    authRequests: createAuthRequests({
      handler: (req) => auth.handler(req),
      throttle: loginThrottle,
      passwordSignInRefusal: (email) => sso.passwordSignInRefusal(email),
      revokeSession: (token) => revokeSessionToken(auth, token),
      knownDevices,
    }),
    knownDevices,
    sso,
    saml: identity.saml,
    scim: identity.scim,
    audit: identity.audit,
    groupMappings: identity.groupMappings,

    operator: createOperatorServices({ db, auth, config, now }),
  };
  return services;
}
