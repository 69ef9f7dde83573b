/**
 * Releases as Errata learns them: from events (`release` field) and from resolutions naming one.
 * Organization-scoped like Sentry's; `release_projects` records where each was seen. The creation
 * time orders versions that are not semver ("resolved in release R" regressions).
 */
import type { ReleaseRef } from "../../core/issue-state/release-order";
import type { Tx } from "../dialect";

const clean = (s: string): string => (s.includes("\u0000") ? s.replaceAll("\u0000", "") : s);

/** project id → org id (one small query per batch; a cache would need to be per database). */
async function orgIds(tx: Tx, projectIds: number[]): Promise<Map<number, number>> {
  const rows = await tx.selectFrom("projects").select(["id", "org_id"]).where("id", "in", projectIds).execute();
  return new Map(rows.map((r) => [Number(r.id), Number(r.org_id)]));
}

export interface SeenRelease {
  projectId: number;
  version: string;
  /** epoch ms of the earliest event naming it in this batch */
  seenAt: number;
}

/**
 * Records the releases a digest batch saw: a handful of statements per batch, none per event.
 * Existing rows are left alone (first knowledge wins).
 */
export async function recordReleases(tx: Tx, seen: SeenRelease[], now: number): Promise<void> {
  if (seen.length === 0) return;
  const orgs = await orgIds(tx, [...new Set(seen.map((s) => s.projectId))]);
  const known = seen
    .filter((s) => orgs.has(s.projectId))
    .map((s) => ({ ...s, version: clean(s.version), orgId: orgs.get(s.projectId) as number }));
  if (known.length === 0) return;
  const releaseRows = new Map<string, { org_id: number; version: string; created_at: number }>();
  for (const s of known) {
    const key = `${s.orgId}\u0000${s.version}`;
    const prev = releaseRows.get(key);
    // created_at: now, not the event time — this is when Errata learnt of the release.
    if (!prev) releaseRows.set(key, { org_id: s.orgId, version: s.version, created_at: now });
  }
  // Key order, here and for the links: concurrent digests lock the rows in one order.
  await tx
    .insertInto("releases")
    .values([...releaseRows.values()].sort((a, b) => a.org_id - b.org_id || (a.version < b.version ? -1 : a.version > b.version ? 1 : 0)))
    .onConflict((oc) => oc.columns(["org_id", "version"]).doNothing())
    .execute();
  const ids = await tx
    .selectFrom("releases")
    .select(["id", "org_id", "version"])
    .where("org_id", "in", [...new Set(known.map((s) => s.orgId))])
    .where("version", "in", [...new Set(known.map((s) => s.version))])
    .execute();
  const idOf = new Map(ids.map((r) => [`${Number(r.org_id)}\u0000${r.version}`, Number(r.id)]));
  const links = new Map<string, { project_id: number; release_id: number; first_seen: number }>();
  for (const s of known) {
    const releaseId = idOf.get(`${s.orgId}\u0000${s.version}`);
    if (releaseId === undefined) continue;
    const key = `${s.projectId}:${releaseId}`;
    const prev = links.get(key);
    if (!prev || s.seenAt < prev.first_seen) links.set(key, { project_id: s.projectId, release_id: releaseId, first_seen: s.seenAt });
  }
  if (links.size === 0) return;
  await tx
    .insertInto("release_projects")
    .values([...links.values()].sort((a, b) => a.project_id - b.project_id || a.release_id - b.release_id))
    .onConflict((oc) => oc.columns(["project_id", "release_id"]).doNothing())
    .execute();
}

/** Makes sure a release exists (a resolution may name one no event has shown yet); returns its order. */
export async function ensureRelease(tx: Tx, projectId: number, version: string, now: number): Promise<ReleaseRef> {
  await recordReleases(tx, [{ projectId, version, seenAt: now }], now);
  return { version: clean(version), order: (await releaseOrder(tx, projectId, version)) ?? now };
}

/** When Errata first knew this release in the project's organization (null: unknown). */
export async function releaseOrder(tx: Tx, projectId: number, version: string): Promise<number | null> {
  const row = await tx
    .selectFrom("releases")
    .innerJoin("projects", "projects.org_id", "releases.org_id")
    .select("releases.created_at")
    .where("projects.id", "=", projectId)
    .where("releases.version", "=", clean(version))
    .executeTakeFirst();
  return row ? Number(row.created_at) : null;
}

/** The project's most recently learnt releases (bounded: "latest release" needs only the recent ones). */
export async function listProjectReleases(tx: Tx, projectId: number, limit = 1000): Promise<ReleaseRef[]> {
  const rows = await tx
    .selectFrom("release_projects")
    .innerJoin("releases", "releases.id", "release_projects.release_id")
    .select(["releases.version", "releases.created_at"])
    .where("release_projects.project_id", "=", projectId)
    .orderBy("releases.created_at", "desc")
    .orderBy("releases.id", "desc")
    .limit(limit)
    .execute();
  return rows.map((r) => ({ version: r.version, order: Number(r.created_at) }));
}
