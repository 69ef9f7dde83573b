/**
 * Row types of every table we own. Times are epoch milliseconds (bigint columns, numbers here) in
 * both dialects; payloads are opaque compressed blobs; JSON settings are TEXT.
 * Better Auth owns `user`, `session`, `account` and `verification` (created by its own migrator).
 */
import type { ColumnType, Generated } from "kysely";

export interface OrganizationsTable {
  id: Generated<number>;
  slug: string;
  name: string;
  created_at: number;
}

export interface MembersTable {
  org_id: number;
  user_id: string;
  role: "owner" | "admin" | "member" | "viewer";
  created_at: number;
  /** 1: provisioned by SCIM or given its role by an identity-provider group (0052); manual changes refused */
  idp_managed: Generated<number>;
}

export interface ProjectsTable {
  id: Generated<number>;
  org_id: number;
  slug: string;
  name: string;
  platform: string;
  created_at: number;
  next_short_id: number;
  grouping_version: string;
  /** the version before the last switch (matched too during the transition), null when none */
  grouping_previous: string | null;
  /** epoch ms of the last grouping-version switch, null when never switched */
  grouping_switched_at: number | null;
  /** JSON object: retention, caps, scrubbing… (later issues). */
  settings: string;
}

export interface ProjectKeysTable {
  id: Generated<number>;
  project_id: number;
  public_key: string;
  label: string;
  active: number;
  created_at: number;
  /** Sentry's deprecated secret half of an imported DSN, kept verbatim; never checked (0034). */
  secret_key: ColumnType<string | null, string | null | undefined, string | null>;
  /** An imported DSN's project id when that id belongs to another project here (0034); null: the project's own. */
  dsn_project_id: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface ApiTokensTable {
  id: Generated<number>;
  user_id: string;
  org_id: number | null;
  name: string;
  /** sha256 hex of the secret; the secret itself is shown once and never stored. */
  token_hash: string;
  token_prefix: string;
  /** space separated scopes */
  scopes: string;
  created_at: number;
  last_used_at: number | null;
  expires_at: number | null;
}

export interface QueueTable {
  id: Generated<number>;
  project_id: number;
  key_id: number;
  received_at: number;
  client_ip: string | null;
  /** what the ingest endpoint accepted: "envelope" or "store" */
  kind: string;
  /** epoch ms from which a worker may (re)claim the row */
  available_at: number;
  attempts: number;
}

/** A queue row's body, apart so that claiming (a lease update) never rewrites it (migration 0023). */
export interface QueueBodiesTable {
  /** the queue row's id */
  id: number;
  /** decompressed request body */
  body: Buffer;
}

/** SQLite only (migration 0027): queue ids digested into the main file, see queue-file.ts. */
export interface QueueDoneTable {
  id: number;
}

export interface IssuesTable {
  id: Generated<number>;
  project_id: number;
  short_id: number;
  title: string;
  culprit: string;
  type: string;
  level: string;
  status: string;
  substatus: string;
  first_seen: number;
  last_seen: number;
  event_count: number;
  user_count: number;
  /** JSON: {type, value, filename, function} as Sentry's issue metadata */
  metadata: string;
  first_event_id: string | null;
  last_event_id: string | null;
  first_release: string | null;
  last_release: string | null;
  /** epoch ms: receive time of the event that set last_release (migration 0026; null before) */
  last_release_seen: number | null;
  /** JSON Resolution (src/core/issue-state) while resolved, else null */
  resolution: string | null;
  /** JSON IgnoreCondition while ignored, else null */
  ignore_details: string | null;
  resolved_at: number | null;
  status_changed_at: number | null;
  /** epoch ms of the next time-based transition (lifecycle sweep), null when none */
  due_at: number | null;
  assignee_user_id: string | null;
  /** the team assigned (0011-teams), null when a member or nobody is */
  assignee_team_id: number | null;
  /** JSON array of classification flags (`deploy-skew`), null when none (0006-nextjs) */
  flags: string | null;
  /** the first event's platform (0050); null for issues made before it (they answer their project's) */
  platform: Generated<string | null>;
}

export interface IssueHashesTable {
  project_id: number;
  hash: string;
  issue_id: number;
  grouping_version: string;
}

export interface IssueUsersTable {
  issue_id: number;
  user_key: string;
}

export interface EventsTable {
  id: Generated<number>;
  project_id: number;
  issue_id: number;
  event_id: string;
  received_at: number;
  timestamp: number;
  level: string;
  platform: string;
  release: string | null;
  environment: string | null;
  title: string;
  culprit: string;
  user_key: string | null;
  trace_id: string | null;
  digest: string | null;
  size: number;
  /** gzip-compressed JSON of the normalised event */
  payload: Buffer;
}

/**
 * PostgreSQL only (migration 0025): the dedupe key of every stored event. `events` is partitioned
 * by received time there, and a unique constraint on a partitioned table must include the
 * partition key, so (project_id, event_id) is unique here instead. Written and deleted with the
 * event rows; SQLite keeps its unique constraint on `events` and has no such table.
 */
export interface EventKeysTable {
  project_id: number;
  event_id: string;
}

export interface ActivityTable {
  id: Generated<number>;
  issue_id: number;
  project_id: number;
  /** null: Errata itself */
  actor_user_id: string | null;
  /** state_change | regression | unignored | assigned | comment | merge | first_seen_in_release */
  kind: string;
  /** JSON object */
  data: string;
  created_at: number;
}

export interface ReleasesTable {
  id: Generated<number>;
  org_id: number;
  version: string;
  created_at: number;
}

export interface ReleaseProjectsTable {
  project_id: number;
  release_id: number;
  first_seen: number;
}

/** An uploaded chunk (sentry-cli chunk upload), content-addressed by sha1 per organization. */
export interface ArtifactChunksTable {
  org_id: number;
  /** sha1 hex of the (decompressed) chunk */
  checksum: string;
  size: number;
  data: Buffer;
  created_at: number;
}

/** An assembled artifact bundle (or release bundle); its files live in `artifact_files`. */
export interface ArtifactBundlesTable {
  id: Generated<number>;
  org_id: number;
  /** sha1 hex of the whole uploaded bundle: re-uploads are recognised by it */
  checksum: string;
  /** the manifest's own `debug_id` (Rust sentry-cli only) */
  bundle_debug_id: string | null;
  /** "" when the bundle names no release / dist */
  release: string;
  dist: string;
  file_count: number;
  size: number;
  created_at: number;
  /** when the digest last resolved a frame with it (0010; at most daily); null: never */
  last_used_at: number | null;
}

/** The projects a bundle was uploaded for; a bundle without rows here serves the whole org. */
export interface ArtifactBundleProjectsTable {
  bundle_id: number;
  project_id: number;
}

/** One file of a bundle, or one legacy release file (bundle_id null). */
export interface ArtifactFilesTable {
  id: Generated<number>;
  org_id: number;
  bundle_id: number | null;
  /** "" when not uploaded for a release; release files are matched by URL within release + dist */
  release: string;
  dist: string;
  /** `~/path` or full URL */
  url: string;
  /** source | minified_source | source_map | indexed_ram_bundle */
  type: string;
  debug_id: string | null;
  /** the `sourcemap` header: the map's URL relative to `url` */
  sourcemap: string | null;
  /** decompressed size */
  size: number;
  sha1: string;
  /** gzip of the file */
  data: Buffer;
  created_at: number;
}

/** Re-symbolication work: events of these debug ids may now be readable (maps arrived late). */
export interface ArtifactJobsTable {
  id: Generated<number>;
  org_id: number;
  /** JSON array of debug ids */
  debug_ids: string;
  created_at: number;
  available_at: number;
  attempts: number;
  /** events rewritten so far (bounded per job) */
  processed: number;
}

/** Events whose frames named a debug id without an uploaded map (filled at digest time). */
export interface EventDebugIdsTable {
  project_id: number;
  debug_id: string;
  /** 32-hex event id (unique per project) */
  event_id: string;
  received_at: number;
}

/** Outcome counters (SPEC §3): how many items of a category ended how, per project, key and hour. */
export interface OutcomesTable {
  project_id: number;
  /** 0 when no DSN key is involved (e.g. the crash-report dialog) */
  key_id: number;
  /** epoch ms, start of the hour */
  hour: number;
  /** Sentry data category: error, default, security, attachment, session, feedback, … */
  category: string;
  /** accepted | filtered | rate_limited | invalid | client_discard */
  outcome: string;
  /** "" for accepted; a reason code otherwise (duplicate, unsupported_item, key_quota, an SDK's discard reason…) */
  reason: string;
  quantity: number;
}

/** A file sent with an event (envelope `attachment` item). */
export interface AttachmentsTable {
  id: Generated<number>;
  project_id: number;
  event_id: string;
  name: string;
  content_type: string;
  attachment_type: string;
  size: number;
  /** sha1 hex of the bytes: a re-delivered attachment is stored once */
  checksum: string;
  data: Buffer;
  created_at: number;
}

/** User feedback: `user_report` items, `feedback` items and the crash-report dialog. */
export interface UserFeedbackTable {
  id: Generated<number>;
  project_id: number;
  /** unique per project: the reported event's id (user_report, dialog) or the feedback event's own id */
  feedback_id: string;
  /** the error event it is about, when named */
  event_id: string | null;
  name: string;
  email: string;
  comments: string;
  url: string | null;
  /** user_report | feedback | crash_report_dialog */
  source: string;
  created_at: number;
  /** the session replay a feedback widget report names (migration 0047) */
  replay_id: ColumnType<string | null, string | null | undefined, string | null>;
}

/** Release health: sessions per project, release, environment and hour they started. */
export interface SessionAggregatesTable {
  project_id: number;
  release: string;
  /** "" when the SDK sent none */
  environment: string;
  hour: number;
  total: number;
  ok: number;
  errored: number;
  unhandled: number;
  abnormal: number;
  crashed: number;
  /** distinct `did` values seen in this bucket */
  users: number;
}

/** The status class a live session was last counted under (see src/core/sessions.ts). */
export interface SessionStatesTable {
  project_id: number;
  sid: string;
  release: string;
  environment: string;
  hour: number;
  status: string;
  updated_at: number;
}

export interface SessionUsersTable {
  project_id: number;
  release: string;
  environment: string;
  hour: number;
  did_hash: string;
  /** 1 once a session of this user in this bucket crashed (0009) */
  crashed: Generated<number>;
}

/** Events per issue and hour (0007): sparklines and trend charts. */
export interface IssueHourlyTable {
  issue_id: number;
  /** epoch ms, start of the hour */
  hour: number;
  count: number;
}

/** Migration 0042: the per-UTC-day rollup of issue_hourly (14-day series without 336 rows per issue). */
export interface IssueDailyTable {
  issue_id: number;
  /** epoch ms, start of the UTC day */
  day: number;
  count: number;
}

/** Events per issue carrying a tag value (0007): distribution bars, tag search, autocompletion. */
export interface IssueTagValuesTable {
  issue_id: number;
  key: string;
  value: string;
  project_id: number;
  count: number;
  /** epoch ms of the last event with it */
  last_seen: number;
}

/** Events per issue carrying a tag key at all (0007): the denominators of the distribution bars. */
export interface IssueTagKeysTable {
  issue_id: number;
  key: string;
  project_id: number;
  count: number;
}

export interface InstallationTable {
  key: string;
  value: string;
}

/** Spans kept to explain errors (0019, src/core/traces.ts). */
export interface SpansTable {
  id: Generated<number>;
  project_id: number;
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  segment_name: string | null;
  name: string;
  op: string | null;
  status: string | null;
  start_ms: number;
  end_ms: number;
  attributes: string;
  received_at: number;
  /** 1: starts a segment (a transaction or a service's entry span), the trace list's rows (0050) */
  segment: Generated<number>;
}

/** Logs kept to explain errors (0019). */
export interface LogRecordsTable {
  id: Generated<number>;
  project_id: number;
  trace_id: string | null;
  span_id: string | null;
  timestamp: number;
  level: string;
  body: string;
  attributes: string;
  /** content hash: the same record delivered twice is stored once */
  dedupe: string;
  received_at: number;
}

/** What `Sentry.metrics` sends (0050): one sample per row, keyed by name and attributes. */
export interface TraceMetricsTable {
  id: Generated<number>;
  project_id: number;
  trace_id: string | null;
  span_id: string | null;
  name: string;
  /** counter | gauge | distribution */
  type: string;
  unit: string | null;
  value: number;
  /** epoch ms */
  timestamp: number;
  /** JSON object of the sample's attributes */
  attributes: string;
  /** content hash: the same sample delivered twice is stored once */
  dedupe: string;
  received_at: number;
}

/** Sentry release fields beyond the version (0012): one row per release at most. */
export interface ReleaseMetaTable {
  release_id: number;
  date_started: number | null;
  /** set by `sentry-cli releases finalize` */
  date_released: number | null;
  ref: string | null;
  url: string | null;
  /** open | archived */
  status: Generated<string>;
}

/** Commits (or bare refs) of a release as the client sent them, position 0 = newest. */
export interface ReleaseCommitsTable {
  id: Generated<number>;
  release_id: number;
  position: number;
  repository: string;
  commit_id: string;
  previous_commit: string | null;
  author_name: string | null;
  author_email: string | null;
  message: string | null;
  committed_at: number | null;
}

/** A file a release commit changed (0032-ownership; Sentry's `patch_set`): A, M or D. */
export interface ReleaseCommitFilesTable {
  id: Generated<number>;
  release_id: number;
  commit_id: string;
  path: string;
  change_type: string;
}

/** A project's ownership rules as written (0032-ownership). */
export interface ProjectOwnershipTable {
  project_id: number;
  raw: string;
  /** 1: with no matching rule, alerts to issue owners go to every project member */
  fallthrough: Generated<number>;
  /** owner | suspect | off */
  auto_assignment: Generated<string>;
  codeowners_auto_sync: Generated<number>;
  created_at: number;
  updated_at: number;
}

/** A CODEOWNERS file of a project (0039), as pasted or posted through Sentry's codeowners API. */
export interface ProjectCodeownersTable {
  id: Generated<number>;
  project_id: number;
  raw: string;
  code_mapping_id: string | null;
  created_at: number;
  updated_at: number;
}

/** An organization's name for a CODEOWNERS handle (0039): `@acme/payments` → a team, `@pat` → a member. */
export interface ExternalNamesTable {
  id: Generated<number>;
  org_id: number;
  /** github | gitlab */
  provider: string;
  external_name: string;
  team_id: number | null;
  user_id: string | null;
  created_at: number;
}

/** The existing tracker issue linked to an issue (0039). */
export interface IssueLinksTable {
  issue_id: number;
  url: string;
  user_id: string | null;
  created_at: number;
}

/** Weekly summary emails sent (0039): one row per member, organization and week. */
export interface WeeklySummarySendsTable {
  user_id: string;
  org_id: number;
  week_start: number;
  sent_at: number;
}

export interface WeeklySummaryOptoutsTable {
  user_id: string;
  created_at: number;
}

export interface ReleaseDeploysTable {
  id: Generated<number>;
  release_id: number;
  environment: string;
  name: string | null;
  url: string | null;
  date_started: number | null;
  date_finished: number;
}

/** Failed (or in-flight) sign-ins per subject (`account:<sha256 of email>` or `ip:<address>`). */
export interface LoginFailuresTable {
  id: Generated<number>;
  subject: string;
  at: number;
  /** the attempt's hashed account key and client address (0046); null on older rows and markers */
  account: string | null;
  address: string | null;
}

/** A merged issue's id → the issue that absorbed it (0016-issue-redirects). */
export interface IssueRedirectsTable {
  issue_id: number;
  project_id: number;
  target_issue_id: number;
  created_at: number;
}

/** An issue a merge or delete in flight has claimed (0045-issue-claims; src/storage/issues/claims.ts). */
export interface IssueClaimsTable {
  issue_id: number;
  project_id: number;
  /** "merge" | "delete" */
  operation: string;
  /** merge: the issue that survives (equal to issue_id on the survivor's own claim) */
  target_issue_id: number | null;
  /** the operation's run (random); every chunk checks it still owns its claims */
  owner: string;
  /** who asked for it (the activity entry of a merge finished by another run) */
  actor_user_id: string | null;
  claimed_at: number;
  /** renewed by every chunk; past it, another run may take the claim over and finish the work */
  expires_at: number;
}

export interface InvitationsTable {
  id: Generated<number>;
  org_id: number;
  /** lower-cased */
  email: string;
  role: MembersTable["role"];
  /** sha256 hex of the secret in the link; the secret itself is never stored */
  token_hash: string;
  invited_by: string;
  created_at: number;
  expires_at: number;
  accepted_at: number | null;
  accepted_user_id: string | null;
  revoked_at: number | null;
}

export interface TeamsTable {
  id: Generated<number>;
  org_id: number;
  slug: string;
  name: string;
  created_at: number;
}

export interface TeamMembersTable {
  team_id: number;
  user_id: string;
  /** 1: from an identity-provider group mapped to the team (0052); manual removal refused */
  managed: Generated<number>;
}

/** The teams an accepted invitation joins (0034); none: the default team. */
export interface InvitationTeamsTable {
  invitation_id: number;
  team_id: number;
}

/** What an import made of a source object without a natural key here (0041). */
export interface ImportLinksTable {
  org_id: number;
  /** alert_rule | issue */
  kind: string;
  /** e.g. `project-slug/rule-id` on the source */
  source_key: string;
  local_id: number;
  created_at: number;
}

/** An import started from the settings page (0041); never holds the token. */
export interface ImportRunsTable {
  id: string;
  org_id: number;
  user_id: string;
  /** running | done | failed */
  status: string;
  /** JSON ImportProgress */
  progress: string;
  /** JSON ImportReport when done */
  report: string | null;
  /** the catalogue code and message when failed, JSON */
  error: string | null;
  created_at: number;
  updated_at: number;
}

export interface TeamProjectsTable {
  team_id: number;
  project_id: number;
}

/** Alert channels per project (0013): kind + JSON config (URL, secret, recipients). */
export interface AlertChannelsTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  kind: string;
  config: string;
  created_at: number;
}

/** Alert rules per project (0013): JSON triggers, filters and channel ids (src/core/alerts/types.ts). */
export interface AlertRulesTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  enabled: number;
  triggers: string;
  filters: string;
  channel_ids: string;
  throttle_minutes: number;
  hourly_cap: number;
  /** JSON RuleTarget[] (0039): email to issue owners / suspect commit authors */
  targets: Generated<string>;
  created_at: number;
  updated_at: number;
}

/** Per (rule, issue): the frequency window and the throttle (0013). */
export interface AlertRuleIssuesTable {
  rule_id: number;
  issue_id: number;
  window_start: number;
  base_events: number;
  base_users: number;
  fired_in_window: number;
  last_notified_at: number | null;
}

/** Per (rule, release): the crash-free trigger's latch and throttle (0022). */
export interface AlertRuleReleasesTable {
  rule_id: number;
  release: string;
  /** 1 while the rule has sent for the release's current drop below the threshold */
  below: number;
  last_notified_at: number | null;
  updated_at: number;
}

/** The notification outbox (0013): written by the digest, sent by the delivery loop. */
export interface NotificationsTable {
  id: Generated<number>;
  project_id: number;
  rule_id: number | null;
  channel_id: number;
  issue_id: number | null;
  /** alert | digest | test */
  kind: string;
  trigger: string | null;
  /** JSON AlertMessage (src/core/alerts/message.ts) */
  payload: string;
  /** pending | sent | failed | held (over the hourly cap) | summarised (listed in a digest) */
  status: string;
  attempts: Generated<number>;
  next_attempt_at: number;
  /** a claim: another worker may take the row after this (crash recovery) */
  lease_until: number | null;
  last_error: string | null;
  response_status: number | null;
  response_body: string | null;
  /** JSON RuleTarget (0039) when the row goes to people (channel_id 0), resolved at delivery */
  target: string | null;
  /** idempotency key sent with the message; unique */
  delivery_id: string;
  created_at: number;
  sent_at: number | null;
}

export interface AlertMutesTable {
  issue_id: number;
  /** epoch ms; null = muted until unmuted */
  until: number | null;
  created_at: number;
}

export interface AlertEmailOptoutsTable {
  user_id: string;
  project_id: number;
}

/** Cron monitors (0014): one per project and slug; `config` is MonitorConfig JSON. */
export interface MonitorsTable {
  id: Generated<number>;
  project_id: number;
  slug: string;
  name: string;
  status: string;
  muted: Generated<number>;
  config: string;
  created_at: number;
  updated_at: number;
}

/** A monitor's state per environment (0014): the evaluator's schedule and the failure streak. */
export interface MonitorEnvironmentsTable {
  id: Generated<number>;
  monitor_id: number;
  environment: string;
  status: string;
  last_checkin_at: number | null;
  next_checkin_at: number | null;
  next_checkin_latest: number | null;
  failures: Generated<number>;
  successes: Generated<number>;
  issue_id: number | null;
  created_at: number;
}

/** Check-ins (0014), including the evaluator's missed ones. */
export interface MonitorCheckinsTable {
  id: Generated<number>;
  monitor_id: number;
  monitor_environment_id: number;
  project_id: number;
  check_in_id: string;
  status: string;
  duration_ms: number | null;
  release: string | null;
  expected_at: number | null;
  timeout_at: number | null;
  created_at: number;
  updated_at: number;
}

/** Uptime (HTTP) monitors (0014); `config` is UptimeConfig JSON. */
export interface UptimeMonitorsTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  config: string;
  paused: Generated<number>;
  state: string;
  failures: Generated<number>;
  successes: Generated<number>;
  next_check_at: number;
  issue_id: number | null;
  created_at: number;
}

/** One uptime check (0014). */
export interface UptimeResultsTable {
  id: Generated<number>;
  monitor_id: number;
  checked_at: number;
  up: number;
  status: number | null;
  latency_ms: number | null;
  error: string | null;
}

/** OpenID Connect settings of an organization (0020). */
export interface OrgSsoTable {
  org_id: number;
  issuer: string;
  client_id: string;
  /** AES-256-GCM under a key derived from the installation secret (src/server/auth/secret-box.ts) */
  client_secret_sealed: string;
  default_role: MembersTable["role"];
  /** 1: members other than owners must sign in through the provider */
  required: number;
  updated_at: number;
}

/** An account the organization's provider vouched for, by the provider's subject (0020). */
export interface SsoIdentitiesTable {
  id: Generated<number>;
  org_id: number;
  issuer: string;
  subject: string;
  user_id: string;
  created_at: number;
  last_login_at: number;
}

/** A mailed "forgot password" link (0021): only the sha256 of its secret is stored. */
export interface PasswordResetsTable {
  id: Generated<number>;
  user_id: string;
  token_hash: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

/** Session replays (0047): one row per replay, folded from its segments' replay_events. */
export interface ReplaysTable {
  id: Generated<number>;
  project_id: number;
  replay_id: string;
  started_at: number;
  finished_at: number;
  received_at: number;
  replay_type: string | null;
  platform: string | null;
  release: string | null;
  environment: string | null;
  dist: string | null;
  user_id: string | null;
  user_email: string | null;
  user_username: string | null;
  user_ip: string | null;
  user_name: string | null;
  browser_name: string | null;
  browser_version: string | null;
  os_name: string | null;
  os_version: string | null;
  device_name: string | null;
  device_brand: string | null;
  device_family: string | null;
  device_model: string | null;
  sdk_name: string | null;
  sdk_version: string | null;
  /** JSON array of URLs in visiting order */
  urls: string;
  /** JSON array */
  trace_ids: string;
  /** "\nkey=value\n" lines (searchable with LIKE in both dialects) */
  tags: string;
  count_segments: number;
  count_errors: number;
  count_urls: number;
  count_clicks: number;
  count_dead_clicks: number;
  count_rage_clicks: number;
  activity: number;
  size_bytes: number;
}

/** One recording segment: its blob (storage/blobs/) and what the list and player need without reading it. */
export interface ReplaySegmentsTable {
  project_id: number;
  replay_id: string;
  segment_id: number;
  blob_key: string;
  size: number;
  raw_size: number;
  started_at: number;
  ended_at: number;
  received_at: number;
}

/** Error events a replay saw: named by its replay_events (`error_ids`) or carrying its id. */
export interface ReplayErrorsTable {
  project_id: number;
  replay_id: string;
  event_id: string;
  issue_id: number | null;
  timestamp: number | null;
}

/** The blob store on PostgreSQL (storage/blobs/pg-blobs.ts). */
export interface BlobsTable {
  key: string;
  size: number;
  data: Buffer;
  created_at: number;
}

/** One backup (0054): scheduled or `errata backup`; `ok` null while it runs. */
export interface BackupRunsTable {
  id: Generated<number>;
  trigger: "scheduled" | "manual";
  started_at: number;
  finished_at: number | null;
  ok: number | null;
  path: string | null;
  size: number | null;
  error: string | null;
}

export interface Database {
  installation: InstallationTable;
  organizations: OrganizationsTable;
  members: MembersTable;
  projects: ProjectsTable;
  project_keys: ProjectKeysTable;
  api_tokens: ApiTokensTable;
  queue: QueueTable;
  queue_bodies: QueueBodiesTable;
  queue_done: QueueDoneTable;
  issues: IssuesTable;
  issue_hashes: IssueHashesTable;
  issue_users: IssueUsersTable;
  events: EventsTable;
  event_keys: EventKeysTable;
  artifact_chunks: ArtifactChunksTable;
  artifact_bundles: ArtifactBundlesTable;
  artifact_bundle_projects: ArtifactBundleProjectsTable;
  artifact_files: ArtifactFilesTable;
  artifact_jobs: ArtifactJobsTable;
  event_debug_ids: EventDebugIdsTable;
  activity: ActivityTable;
  releases: ReleasesTable;
  release_projects: ReleaseProjectsTable;
  outcomes: OutcomesTable;
  attachments: AttachmentsTable;
  user_feedback: UserFeedbackTable;
  session_aggregates: SessionAggregatesTable;
  session_states: SessionStatesTable;
  session_users: SessionUsersTable;
  issue_hourly: IssueHourlyTable;
  issue_daily: IssueDailyTable;
  issue_tag_values: IssueTagValuesTable;
  issue_tag_keys: IssueTagKeysTable;
  spans: SpansTable;
  log_records: LogRecordsTable;
  trace_metrics: TraceMetricsTable;
  release_meta: ReleaseMetaTable;
  release_commits: ReleaseCommitsTable;
  release_commit_files: ReleaseCommitFilesTable;
  project_ownership: ProjectOwnershipTable;
  project_codeowners: ProjectCodeownersTable;
  external_names: ExternalNamesTable;
  issue_links: IssueLinksTable;
  weekly_summary_sends: WeeklySummarySendsTable;
  weekly_summary_optouts: WeeklySummaryOptoutsTable;
  release_deploys: ReleaseDeploysTable;
  login_failures: LoginFailuresTable;
  issue_redirects: IssueRedirectsTable;
  issue_claims: IssueClaimsTable;
  invitations: InvitationsTable;
  teams: TeamsTable;
  team_members: TeamMembersTable;
  team_projects: TeamProjectsTable;
  invitation_teams: InvitationTeamsTable;
  import_links: ImportLinksTable;
  import_runs: ImportRunsTable;
  alert_channels: AlertChannelsTable;
  alert_rules: AlertRulesTable;
  alert_rule_issues: AlertRuleIssuesTable;
  alert_rule_releases: AlertRuleReleasesTable;
  notifications: NotificationsTable;
  alert_mutes: AlertMutesTable;
  alert_email_optouts: AlertEmailOptoutsTable;
  monitors: MonitorsTable;
  monitor_environments: MonitorEnvironmentsTable;
  monitor_checkins: MonitorCheckinsTable;
  uptime_monitors: UptimeMonitorsTable;
  uptime_results: UptimeResultsTable;
  org_sso: OrgSsoTable;
  sso_identities: SsoIdentitiesTable;
  password_resets: PasswordResetsTable;
  org_saml: OrgSamlTable;
  saml_requests: SamlRequestsTable;
  saml_assertions: SamlAssertionsTable;
  scim_tokens: ScimTokensTable;
  scim_users: ScimUsersTable;
  idp_groups: IdpGroupsTable;
  idp_group_members: IdpGroupMembersTable;
  audit_log: AuditLogTable;
  replays: ReplaysTable;
  replay_segments: ReplaySegmentsTable;
  replay_errors: ReplayErrorsTable;
  blobs: BlobsTable;
  backup_runs: BackupRunsTable;
}

/** SAML 2.0 settings of an organization (0051). */
export interface OrgSamlTable {
  org_id: number;
  idp_entity_id: string;
  idp_sso_url: string;
  /** JSON array of PEM certificates */
  idp_certs: string;
  metadata_url: string | null;
  sp_cert: string;
  /** AES-256-GCM under a key derived from the installation secret */
  sp_key_sealed: string;
  attr_email: string;
  attr_name: string;
  attr_groups: string;
  default_role: MembersTable["role"];
  required: number;
  updated_at: number;
}

/** An AuthnRequest sent to the identity provider (0051): its id is the InResponseTo it must answer, once. */
export interface SamlRequestsTable {
  id: string;
  org_id: number;
  /** "signin", "link" or "test" */
  purpose: string;
  user_id: string | null;
  next: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  /** a test's result (what the IdP asserted), JSON */
  result: string | null;
}

/** An assertion id accepted once (0051). */
export interface SamlAssertionsTable {
  org_id: number;
  assertion_id: string;
  expires_at: number;
}

/** The organization's SCIM bearer token, hashed (0052). */
export interface ScimTokensTable {
  org_id: number;
  token_hash: string;
  token_prefix: string;
  created_by: string;
  created_at: number;
  last_used_at: number | null;
}

/** What SCIM said about a member it provisions (0052). */
export interface ScimUsersTable {
  org_id: number;
  user_id: string;
  external_id: string | null;
  user_name: string;
  /** 0: deactivated by SCIM (no membership left) */
  active: number;
  /** 1: SCIM created the account */
  created_account: number;
  created_at: number;
  updated_at: number;
}

/** A group of the identity provider mapped to a team and/or a role (0052). */
export interface IdpGroupsTable {
  id: Generated<number>;
  org_id: number;
  name: string;
  scim_id: string | null;
  external_id: string | null;
  team_id: number | null;
  role: MembersTable["role"] | null;
  created_at: number;
  updated_at: number;
}

/** A person in an identity-provider group, by SCIM or by a sign-in's groups attribute (0052). */
export interface IdpGroupMembersTable {
  group_id: number;
  user_id: string;
  source: "scim" | "signin";
}

/** One entry of an organization's audit log (0053). */
export interface AuditLogTable {
  id: Generated<number>;
  org_id: number;
  at: number;
  actor_user_id: string | null;
  actor: string;
  action: string;
  target: string;
  address: string | null;
  /** JSON object */
  details: string | null;
}
