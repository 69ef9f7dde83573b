/**
 * Releases, deploys and commits of an import from Sentry (issue 32): read from the organization's
 * release list, written one release per transaction. A release is matched by its version (Errata's
 * natural key), deploys by environment, finish time and name; commits are replaced only when they
 * differ. A release keeps the source's creation time, which orders non-semver versions here.
 */

import { AppError } from "../../core/errors";
import type { ImportReport } from "../../core/import/sentry";
import {
  deployKey,
  epochMs,
  importableVersion,
  importedCommit,
  importedDeploy,
  importedReleaseMeta,
  type SentryCommit,
  type SentryDeploy,
  type SentryRelease,
  sentryCommitSchema,
  sentryDeploySchema,
  sentryReleaseSchema,
} from "../../core/import/sentry-releases";
import type { Tx } from "../../storage/dialect";
import { ensureRelease, findRelease } from "../../storage/releases/artifacts";
import { insertDeploy, listCommits, listDeploys, patchReleaseMeta, releaseMetas, replaceCommits } from "../../storage/releases/meta";
import type { SentryClient } from "./sentry-client";

export interface SourceRelease {
  release: SentryRelease;
  deploys: SentryDeploy[];
  commits: SentryCommit[];
}

/** Every release of the organization with its deploys and commits; null when the source has no release API for this token. */
export async function readReleases(
  client: SentryClient,
  org: string,
  onRead: (i: number, total: number) => void,
): Promise<SourceRelease[] | null> {
  const o = encodeURIComponent(org);
  const releases = await client.list(`/api/0/organizations/${o}/releases/`, sentryReleaseSchema).catch(optional);
  if (releases === null) return null;
  const out: SourceRelease[] = [];
  for (const [i, release] of releases.entries()) {
    onRead(i, releases.length);
    const v = encodeURIComponent(release.version);
    const deploys = (await client.list(`/api/0/organizations/${o}/releases/${v}/deploys/`, sentryDeploySchema).catch(optional)) ?? [];
    const commits = (await client.list(`/api/0/organizations/${o}/releases/${v}/commits/`, sentryCommitSchema).catch(optional)) ?? [];
    out.push({ release, deploys, commits });
  }
  return out;
}

function optional(err: unknown): null {
  if (err instanceof AppError && (err.code === "import_source_not_found" || err.code === "import_source_unauthorized")) return null;
  throw err;
}

const sameCommits = (a: ReturnType<typeof importedCommit>[], b: ReturnType<typeof importedCommit>[]) =>
  JSON.stringify(a) === JSON.stringify(b);

/** One release with its deploys and commits (one transaction). */
export async function applyRelease(
  tx: Tx,
  at: { orgId: number; projectIds: Map<string, number>; now: number },
  s: SourceRelease,
  report: ImportReport,
): Promise<void> {
  const version = importableVersion(s.release.version);
  if (version === null) {
    report.entries.push({ kind: "release", name: s.release.version.slice(0, 80), action: "skipped", note: "not a version Errata accepts" });
    return;
  }
  const projectIds = (s.release.projects ?? []).flatMap((p) => at.projectIds.get(p.slug) ?? []);
  const before = await findRelease(tx, at.orgId, version);
  const created = epochMs(s.release.dateCreated) ?? at.now;
  const release = await ensureRelease(tx, { orgId: at.orgId, version, projectIds, now: created });
  let changed = false;

  const meta = importedReleaseMeta(s.release);
  const current = (await releaseMetas(tx, [release.id])).get(release.id);
  if (!current || JSON.stringify({ ...current }) !== JSON.stringify({ ...current, ...meta })) {
    await patchReleaseMeta(tx, release.id, meta);
    changed = true;
  }

  const commits = s.commits.map(importedCommit);
  const have = await listCommits(tx, release.id, 10_000);
  const haveCommits = have.map((c) => ({
    repository: c.repository,
    id: c.id,
    previousCommit: c.previousCommit,
    authorName: c.authorName,
    authorEmail: c.authorEmail,
    message: c.message,
    timestamp: c.timestamp,
  }));
  // A source without commits leaves the ones set here (set-commits after the move) alone.
  if (commits.length > 0 && !sameCommits(commits, haveCommits)) {
    await replaceCommits(tx, release.id, commits);
    changed = true;
  }

  const known = new Set((await listDeploys(tx, release.id, 10_000)).map(deployKey));
  let skippedDeploys = 0;
  for (const d of s.deploys) {
    const deploy = importedDeploy(d);
    if (!deploy) {
      skippedDeploys++;
      continue;
    }
    if (known.has(deployKey(deploy))) continue;
    await insertDeploy(tx, { releaseId: release.id, ...deploy });
    known.add(deployKey(deploy));
    changed = true;
  }

  const counts = `${commits.length} commit${commits.length === 1 ? "" : "s"}, ${s.deploys.length - skippedDeploys} deploy${s.deploys.length - skippedDeploys === 1 ? "" : "s"}`;
  const note = skippedDeploys > 0 ? `${counts}; ${skippedDeploys} deploy(s) without a finish time left out` : counts;
  report.entries.push({ kind: "release", name: version, action: !before ? "created" : changed ? "updated" : "unchanged", note });
}
