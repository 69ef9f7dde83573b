/**
 * Migrations as a static list (a folder scan breaks once the server is bundled). Each entry runs
 * in order; Kysely records applied names in `kysely_migration`.
 */
import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";
import type { DialectName } from "../db";
import * as m0001 from "./0001-init";
import * as m0002lifecycle from "./0002-issue-lifecycle";
import * as m0003artifacts from "./0003-artifacts";
import * as m0004groupingTransition from "./0004-grouping-transition";
import * as m0005ingestItems from "./0005-ingest-items";
import * as m0006nextjs from "./0006-nextjs";
import * as m0007issueStats from "./0007-issue-stats";
import * as m0008releaseReads from "./0008-release-reads";
import * as m0009crashedUsers from "./0009-crashed-users";
import * as m0010bundleUse from "./0010-bundle-use";
import * as m0011teams from "./0011-teams";
import * as m0012releaseMeta from "./0012-release-meta";
import * as m0013alerts from "./0013-alerts";
import * as m0014monitors from "./0014-monitors";
import * as m0015security from "./0015-security";
import * as m0016issueRedirects from "./0016-issue-redirects";
import * as m0019traces from "./0019-traces";
import * as m0020sso from "./0020-sso";
import * as m0021passwordResets from "./0021-password-resets";
import * as m0022alertRuleReleases from "./0022-alert-rule-releases";
import * as m0023queueBodies from "./0023-queue-bodies";
import * as m0024queueBodyLz4 from "./0024-queue-body-lz4";
import * as m0025eventsPartitioned from "./0025-events-partitioned";
import * as m0026issueReleaseSeen from "./0026-issue-release-seen";
import * as m0027queueDone from "./0027-queue-done";
import * as m0028eventsInlinePayload from "./0028-events-inline-payload";
import * as m0032ownership from "./0032-ownership";
import * as m0034importedKeys from "./0034-imported-keys";
import * as m0039ownerRouting from "./0039-owner-routing";
import * as m0041importLinks from "./0041-import-links";
import * as m0042issueDaily from "./0042-issue-daily";
import * as m0043orgTokenCi from "./0043-org-token-ci";
import * as m0045issueClaims from "./0045-issue-claims";
import * as m0046loginFailureOrigin from "./0046-login-failure-origin";
import * as m0047replays from "./0047-replays";
import * as m0050tracesMetrics from "./0050-traces-metrics";
import * as m0051saml from "./0051-saml";
import * as m0052scim from "./0052-scim";
import * as m0053auditLog from "./0053-audit-log";
import * as m0054backupRuns from "./0054-backup-runs";
import * as m0055streamSortIndexes from "./0055-stream-sort-indexes";
import * as m0056spansTraceStart from "./0056-spans-trace-start";

type Step = { up(db: Kysely<unknown>, dialect: DialectName): Promise<void> };

const steps: Record<string, Step> = {
  "0001-init": m0001,
  "0002-issue-lifecycle": m0002lifecycle,
  "0003-artifacts": m0003artifacts,
  "0004-grouping-transition": m0004groupingTransition,
  "0005-ingest-items": m0005ingestItems,
  "0006-nextjs": m0006nextjs,
  "0007-issue-stats": m0007issueStats,
  "0008-release-reads": m0008releaseReads,
  "0009-crashed-users": m0009crashedUsers,
  "0010-bundle-use": m0010bundleUse,
  "0011-teams": m0011teams,
  "0012-release-meta": m0012releaseMeta,
  "0013-alerts": m0013alerts,
  "0014-monitors": m0014monitors,
  "0015-security": m0015security,
  "0016-issue-redirects": m0016issueRedirects,
  "0019-traces": m0019traces,
  "0020-sso": m0020sso,
  "0021-password-resets": m0021passwordResets,
  "0022-alert-rule-releases": m0022alertRuleReleases,
  "0023-queue-bodies": m0023queueBodies,
  "0024-queue-body-lz4": m0024queueBodyLz4,
  "0025-events-partitioned": m0025eventsPartitioned,
  "0026-issue-release-seen": m0026issueReleaseSeen,
  "0027-queue-done": m0027queueDone,
  "0028-events-inline-payload": m0028eventsInlinePayload,
  "0032-ownership": m0032ownership,
  "0034-imported-keys": m0034importedKeys,
  "0039-owner-routing": m0039ownerRouting,
  "0041-import-links": m0041importLinks,
  "0042-issue-daily": m0042issueDaily,
  "0043-org-token-ci": m0043orgTokenCi,
  "0045-issue-claims": m0045issueClaims,
  "0046-login-failure-origin": m0046loginFailureOrigin,
  "0047-replays": m0047replays,
  "0050-traces-metrics": m0050tracesMetrics,
  "0051-saml": m0051saml,
  "0052-scim": m0052scim,
  "0053-audit-log": m0053auditLog,
  "0054-backup-runs": m0054backupRuns,
  "0055-stream-sort-indexes": m0055streamSortIndexes,
  "0056-spans-trace-start": m0056spansTraceStart,
};

export function migrationsFor(dialect: DialectName): Record<string, Migration> {
  return Object.fromEntries(Object.entries(steps).map(([name, step]) => [name, { up: (db: Kysely<unknown>) => step.up(db, dialect) }]));
}

export const latestMigration = Object.keys(steps).at(-1) as string;
