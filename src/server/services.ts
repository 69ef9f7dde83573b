/**
 * The application services: every read and write of the UI, the REST API and the CLI goes through
 * these, and each checks the viewer's access itself (authorization lives here, not in routes).
 */
import type { Logger } from "pino";
import type { Action } from "./access/permissions";
import type { AlertServices } from "./alerts/alerts";
import type { AccountServices } from "./auth/account";
import type { KnownDeviceLinks } from "./auth/known-device-link";
import type { PasswordResetServices } from "./auth/password-reset";
import type { AuthRequests } from "./auth/requests";
import type { SsoServices } from "./auth/sso";
import type { DiscoverApi } from "./events/discover-api";
import type { EventApiServices } from "./events/event-api";
import type { IngestDataServices } from "./events/ingest-data";
import type { StatsApi } from "./events/stats-api";
import type { TraceServices } from "./events/traces";
import type { FeedbackServices } from "./feedback/inbox";
import type { UserFeedbackApi } from "./feedback/user-feedback-api";
import type { IdentityServices } from "./identity/identity-services";
import type { ImportRunServices } from "./import/import-runs";
import type { ImportServices } from "./import/sentry-import";
import type { BackupServices } from "./installation/backups";
import type { IssueActions } from "./issues/actions";
import type { IssueBulkServices } from "./issues/bulk";
import type { IssueListQuery, ListedIssue } from "./issues/list-query";
import type { IssueRedirects } from "./issues/redirects";
import type { IssueStreamServices } from "./issues/stream";
import type { TrackerServices } from "./issues/trackers";
import type { IssueUnmerge } from "./issues/unmerge";
import type { MemberServices } from "./members/members";
import type { TeamServices } from "./members/teams";
import type { TokenServices } from "./members/tokens";
import type { WeeklySummaryServices } from "./members/weekly-summary";
import type { MonitorServices } from "./monitors/cron";
import type { UptimeServices } from "./monitors/uptime";
import type { KeyServices, ProjectAdminServices } from "./orgs/project-admin";
import type { OrgServices, ProjectReads } from "./orgs/reads";
import type { CodeownersServices } from "./ownership/codeowners";
import type { OwnershipServices } from "./ownership/ownership";
import type { ArtifactServices } from "./releases/artifacts";
import type { ReleaseApiServices } from "./releases/release-api";
import type { ReleaseServices } from "./releases/screens";
import type { ReplayServices } from "./replays/replays";
import type { TraceApi } from "./traces/trace-api";
import type { TracePageServices } from "./traces/trace-page";
import type { DigestEvent, DigestLookup, EventDetail, IssueDetail, IssueSummary, Page, Viewer } from "./types";

export interface SetupInput {
  name: string;
  email: string;
  password: string;
  orgName: string;
  orgSlug: string;
}

export interface AppServices {
  /** Better Auth instance (handler for /api/auth/*, session lookup). */
  // biome-ignore lint/suspicious/noExplicitAny: Better Auth's instance type is generic over its options; callers use .handler and .api only.
  auth: any;
  publicUrl: string;
  log: Logger;
  flags: { testRoutes: boolean };
  /**
   * Throws not_found or forbidden unless the viewer may do `action` in the organization (the
   * permission table). Forms that look something up before changing it call this first, so a role
   * that may not change it hears so, not "choose one" (the services check again when they write).
   */
  authorize(viewer: Viewer, orgSlug: string, action: Action): Promise<void>;
  /** The installation's Backups page (installation operators only). */
  backups: BackupServices;
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
  orgs: OrgServices;
  /** Reads (every member) plus create / settings (src/server/orgs/project-admin.ts; changes need admin or owner). */
  projects: ProjectReads & ProjectAdminServices;
  /** DSN keys of a project: list (members), create / label / disable / rotate (admins, owners) — src/server/orgs/project-admin.ts */
  keys: KeyServices;
  /** Releases with new issues, regressions, release health and artifacts — src/server/releases/screens.ts */
  releases: ReleaseServices;
  /** The user-feedback inbox — src/server/feedback/inbox.ts */
  feedback: FeedbackServices;
  /** Session replays: list, detail, segments, delete, counts, an event's replay — src/server/replays/replays.ts */
  replays: ReplayServices;
  issues: {
    list(viewer: Viewer, orgSlug: string, q: IssueListQuery): Promise<Page<ListedIssue> & { directHit?: boolean }>;
    get(viewer: Viewer, orgSlug: string, issueId: number): Promise<IssueDetail>;
    /** What Sentry's issue detail adds over `get` (REST only, not the issue page): unhandled, attachments, comments, tracker link, user reports. */
    sentryDetailFacts(
      viewer: Viewer,
      orgSlug: string,
      issueId: number,
    ): Promise<
      Required<Pick<IssueSummary, "isUnhandled" | "latestEventHasAttachments" | "numComments" | "annotations">> & {
        userReportCount: number;
      }
    >;
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
  };
  /** Source-map uploads (chunks, artifact bundles, legacy release files): src/server/releases/artifacts.ts */
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
  /** Spans and logs of an error's trace, for its issue page — src/server/events/traces.ts */
  traces: TraceServices;
  /** The trace page and list across the viewer's projects (src/server/traces/trace-page.ts) */
  tracePages: TracePageServices;
  /** Sentry's trace endpoints: trace, trace-meta, trace-logs, trace-items (src/server/traces/trace-api.ts) */
  traceApi: TraceApi;
  /** Outcome counters per project (admins) — src/server/events/ingest-data.ts */
  outcomes: IngestDataServices["outcomes"];
  /** Event attachments: list and download with authorization — src/server/events/ingest-data.ts */
  attachments: IngestDataServices["attachments"];
  /** Sentry's event lists, issue tags and hashes over REST (src/server/events/event-api.ts) */
  eventApi: EventApiServices;
  /** Sentry's user-feedback list and create over REST (src/server/feedback/user-feedback-api.ts) */
  userFeedbackApi: UserFeedbackApi;
  /** Sentry's usage stats (project stats, stats_v2) from the outcome counters (src/server/events/stats-api.ts) */
  statsApi: StatsApi;
  discover: DiscoverApi;
  /** Sentry's releases REST API: detail, update, delete, commits, deploys (src/server/releases/release-api.ts) */
  releaseApi: ReleaseApiServices;
  /** Sentry's bulk issue mutations by search instead of ids (src/server/issues/bulk.ts) */
  issueBulk: IssueBulkServices;
  health: {
    ready(): Promise<{ ok: boolean; database: boolean; migrations: boolean; writable: boolean }>;
    /** Records a storage failure (logged once per state change); false when `err` is something else. */
    storageFailed(err: unknown): boolean;
  };
  /** Better Auth's endpoints behind the login throttle (src/server/auth/requests.ts). */
  authRequests: AuthRequests;
  /** Members and invitations of an organization, and the public invitation link — src/server/members/members.ts */
  members: MemberServices;
  /** Teams: members and the projects they see — src/server/members/teams.ts */
  teams: TeamServices;
  /** The signed-in user's own account: name, password, sessions — src/server/auth/account.ts */
  account: AccountServices;
  /** "Forgot password" by email — src/server/auth/password-reset.ts */
  passwordReset: PasswordResetServices;
  /** the one-time link mailed to a locked account's owner (issue 39) */
  knownDevices: KnownDeviceLinks;
  /** Organization and personal API tokens — src/server/members/tokens.ts */
  tokens: TokenServices;
  /** Alert rules, channels, delivery log, mutes, email opt-outs — src/server/alerts/alerts.ts */
  alerts: AlertServices;
  /** Ownership rules, an issue's owners and suspect commits, Sentry's committers — src/server/ownership/ownership.ts */
  ownership: OwnershipServices;
  /** CODEOWNERS files and external names — src/server/ownership/codeowners.ts */
  codeowners: CodeownersServices;
  /** Issue tracker settings, "Create issue" links, linked tracker issues — src/server/issues/trackers.ts */
  trackers: TrackerServices;
  /** The member's weekly summary email switch — src/server/members/weekly-summary.ts */
  weeklySummary: WeeklySummaryServices;
  /** Cron monitors and their check-ins — src/server/monitors/cron.ts */
  monitors: MonitorServices;
  /** Uptime (HTTP) monitors — src/server/monitors/uptime.ts */
  uptime: UptimeServices;
  /** Importing an organization from Sentry's REST API — src/server/import/sentry-import.ts */
  imports: ImportServices;
  /** The settings page's imports: started, polled, reported — src/server/import/import-runs.ts */
  importRuns: ImportRunServices;
  /** Single sign-on (OpenID Connect) per organization — src/server/auth/sso.ts */
  sso: SsoServices;
  /** SAML 2.0 settings and sign-in — src/server/saml/ */
  saml: IdentityServices["saml"];
  /** SCIM 2.0 token, Users and Groups — src/server/scim/ */
  scim: IdentityServices["scim"];
  /** The organization's audit log — src/server/identity/audit-log.ts */
  audit: IdentityServices["audit"];
  /** Identity-provider group → team/role mappings — src/server/identity/group-mappings.ts */
  groupMappings: IdentityServices["groupMappings"];
}
