/**
 * The application services: every read and write of the UI, the REST API and the CLI goes through
 * these, and each checks the viewer's access itself (authorization lives here, not in routes).
 */
import type { Logger } from "pino";
import type { AccountServices } from "./account-service";
import type { AlertServices } from "./alert-service";
import type { ArtifactServices } from "./artifact-service";
import type { AuthRequests } from "./auth-requests";
import type { EventApiServices } from "./event-api";
import type { FeedbackServices } from "./feedback-service";
import type { IngestDataServices } from "./ingest-data-services";
import type { IssueActions } from "./issue-actions";
import type { IssueBulkServices } from "./issue-bulk";
import type { IssueRedirects } from "./issue-redirects";
import type { IssueSort, IssueStreamServices } from "./issue-stream";
import type { IssueUnmerge } from "./issue-unmerge";
import type { MemberServices } from "./member-service";
import type { MonitorServices } from "./monitor-service";
import type { PasswordResetServices } from "./password-reset-service";
import type { KeyServices, ProjectAdminServices } from "./project-admin";
import type { ReleaseApiServices } from "./release-api";
import type { ReleaseServices } from "./release-service";
import type { SsoServices } from "./sso-service";
import type { StatsApi } from "./stats-api";
import type { TeamServices } from "./team-service";
import type { TokenServices } from "./token-service";
import type { TraceServices } from "./trace-service";
import type { DigestEvent, DigestLookup, EventDetail, IssueDetail, IssueSummary, OrgSummary, Page, ProjectSummary, Viewer } from "./types";
import type { UptimeServices } from "./uptime-service";
import type { UserFeedbackApi } from "./user-feedback-api";

export interface SetupInput {
  name: string;
  email: string;
  password: string;
  orgName: string;
  orgSlug: string;
}

export interface IssueListQuery {
  /** Search query (the full SPEC §2 language, src/core/search). */
  query?: string;
  /** Restrict to one project slug. */
  project?: string;
  /** Sentry's sort names: date (last seen, default), new (first seen), freq (events), user (users). */
  sort?: IssueSort;
  limit?: number;
  cursor?: string | null;
}

export interface AppServices {
  /** Better Auth instance (handler for /api/auth/*, session lookup). */
  // biome-ignore lint/suspicious/noExplicitAny: Better Auth's instance type is generic over its options; callers use .handler and .api only.
  auth: any;
  publicUrl: string;
  log: Logger;
  flags: { testRoutes: boolean };
  setup: {
    isDone(): Promise<boolean>;
    /** Creates the owner account and first organization; throws `setup_done` once used. */
    createOwner(input: SetupInput): Promise<{ orgSlug: string; userId: string }>;
  };
  session: {
    /** The viewer for a browser request (session cookie), or null. */
    viewerFromHeaders(headers: Headers): Promise<Viewer | null>;
    /** The viewer for `Authorization: Bearer <token>`, or null. */
    viewerFromToken(authorization: string | null): Promise<Viewer | null>;
  };
  orgs: {
    listForViewer(viewer: Viewer): Promise<OrgSummary[]>;
    /** Throws not_found when the org does not exist or the viewer is not a member. */
    get(viewer: Viewer, orgSlug: string): Promise<OrgSummary>;
    /** An owner of any organization creates another, as its owner (src/server/org-create.ts). */
    create(viewer: Viewer, input: { name: string; slug: string }): Promise<{ slug: string }>;
  };
  /** Reads (every member) plus create / settings (src/server/project-admin.ts; changes need admin or owner). */
  projects: {
    list(viewer: Viewer, orgSlug: string): Promise<ProjectSummary[]>;
    get(viewer: Viewer, orgSlug: string, projectSlug: string): Promise<ProjectSummary>;
  } & ProjectAdminServices;
  /** DSN keys of a project: list (members), create / label / disable / rotate (admins, owners) — src/server/project-admin.ts */
  keys: KeyServices;
  /** Releases with new issues, regressions, release health and artifacts — src/server/release-service.ts */
  releases: ReleaseServices;
  /** The user-feedback inbox — src/server/feedback-service.ts */
  feedback: FeedbackServices;
  issues: {
    list(viewer: Viewer, orgSlug: string, q: IssueListQuery): Promise<Page<IssueSummary>>;
    get(viewer: Viewer, orgSlug: string, issueId: number): Promise<IssueDetail>;
  };
  /** The triage screens' reads: stream with sparklines, autocompletion, live counts, issue page, events (issue-stream.ts). */
  issueStream: IssueStreamServices;
  /** Issue lifecycle: resolve/ignore/assign (one or many), merge, delete, comments, activity (issue-actions.ts). */
  issueActions: IssueActions;
  /** Merged issue ids → the survivor (issue-redirects.ts) */
  issueRedirects: IssueRedirects;
  /** Grouping hashes of an issue and unmerge by hash (issue-unmerge.ts) */
  issueUnmerge: IssueUnmerge;
  events: {
    latestForIssue(viewer: Viewer, orgSlug: string, issueId: number): Promise<EventDetail | null>;
    get(viewer: Viewer, orgSlug: string, projectSlug: string, eventId: string): Promise<EventDetail>;
  };
  /** Source-map uploads (chunks, artifact bundles, legacy release files): src/server/artifact-service.ts */
  artifacts: ArtifactServices;
  /** Next.js digests: the events sharing one across the org's projects, and the links between server and browser halves. */
  digests: {
    /** Events with this digest (`@E<code>` ignored) in any project of the org; throws invalid_query for a non-digest. */
    lookup(viewer: Viewer, orgSlug: string, digest: string): Promise<DigestLookup>;
    /**
     * What a search box query that is a bare digest (6–12 digits, optional `@E…`) opens: its newest
     * server event, else its newest client event. Null when the query is not a digest or none matches.
     */
    resolvePasted(viewer: Viewer, orgSlug: string, query: string): Promise<DigestEvent | null>;
    /** Events in other issues sharing a digest with this issue's recent events (±7 days), one row per issue, server first. */
    linkedForIssue(viewer: Viewer, orgSlug: string, issueId: number): Promise<DigestEvent[]>;
  };
  /** Spans and logs of an error's trace, for its issue page — src/server/trace-service.ts */
  traces: TraceServices;
  /** Outcome counters per project (admins) — src/server/ingest-data-services.ts */
  outcomes: IngestDataServices["outcomes"];
  /** Event attachments: list and download with authorization — src/server/ingest-data-services.ts */
  attachments: IngestDataServices["attachments"];
  /** Sentry's event lists, issue tags and hashes over REST (src/server/event-api.ts) */
  eventApi: EventApiServices;
  /** Sentry's user-feedback list and create over REST (src/server/user-feedback-api.ts) */
  userFeedbackApi: UserFeedbackApi;
  /** Sentry's usage stats (project stats, stats_v2) from the outcome counters (src/server/stats-api.ts) */
  statsApi: StatsApi;
  /** Sentry's releases REST API: detail, update, delete, commits, deploys (src/server/release-api.ts) */
  releaseApi: ReleaseApiServices;
  /** Sentry's bulk issue mutations by search instead of ids (src/server/issue-bulk.ts) */
  issueBulk: IssueBulkServices;
  health: {
    ready(): Promise<{ ok: boolean; database: boolean; migrations: boolean; writable: boolean }>;
    /** Records a storage failure (logged once per state change); false when `err` is something else. */
    storageFailed(err: unknown): boolean;
  };
  /** Better Auth's endpoints behind the login throttle (src/server/auth-requests.ts). */
  authRequests: AuthRequests;
  /** Members and invitations of an organization, and the public invitation link — src/server/member-service.ts */
  members: MemberServices;
  /** Teams: members and the projects they see — src/server/team-service.ts */
  teams: TeamServices;
  /** The signed-in user's own account: name, password, sessions — src/server/account-service.ts */
  account: AccountServices;
  /** "Forgot password" by email — src/server/password-reset-service.ts */
  passwordReset: PasswordResetServices;
  /** Organization and personal API tokens — src/server/token-service.ts */
  tokens: TokenServices;
  /** Alert rules, channels, delivery log, mutes, email opt-outs — src/server/alert-service.ts */
  alerts: AlertServices;
  /** Cron monitors and their check-ins — src/server/monitor-service.ts */
  monitors: MonitorServices;
  /** Uptime (HTTP) monitors — src/server/uptime-service.ts */
  uptime: UptimeServices;
  /** Single sign-on (OpenID Connect) per organization — src/server/sso-service.ts */
  sso: SsoServices;
}
