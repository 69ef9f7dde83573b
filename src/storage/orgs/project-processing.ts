/**
 * What the digest needs to know about a project to process its events: the grouping version
 * (and the previous one during a transition) and the settings JSON (scrubbing, …). Read once per
 * batch for all projects in it.
 */
import type { Db } from "../db";
import type { Tx } from "../dialect";

export interface ProjectProcessing {
  groupingVersion: string;
  /** the version before the last switch; matched too while the transition lasts */
  groupingPrevious: string | null;
  /** epoch ms of the last switch */
  groupingSwitchedAt: number | null;
  /** `projects.settings`, parsed; `{}` when unreadable */
  settings: Record<string, unknown>;
}

function parseSettings(text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export async function readProjectProcessing(db: Db, projectIds: number[]): Promise<Map<number, ProjectProcessing>> {
  if (projectIds.length === 0) return new Map();
  const rows = await db.kysely
    .selectFrom("projects")
    .select(["id", "grouping_version", "grouping_previous", "grouping_switched_at", "settings"])
    .where("id", "in", projectIds)
    .execute();
  return new Map(
    rows.map((r) => [
      Number(r.id),
      {
        groupingVersion: r.grouping_version,
        groupingPrevious: r.grouping_previous,
        groupingSwitchedAt: r.grouping_switched_at === null ? null : Number(r.grouping_switched_at),
        settings: parseSettings(r.settings),
      },
    ]),
  );
}

/**
 * Switches a project to another grouping version, remembering the current one as `previous` so
 * the digest matches existing issues by both for the transition period. No-op (false) when the
 * project already uses `version` or does not exist.
 */
export async function switchGroupingVersion(tx: Tx, projectId: number, version: string, now: number): Promise<boolean> {
  const row = await tx.selectFrom("projects").select("grouping_version").where("id", "=", projectId).executeTakeFirst();
  if (!row || row.grouping_version === version) return false;
  await tx
    .updateTable("projects")
    .set({ grouping_version: version, grouping_previous: row.grouping_version, grouping_switched_at: now })
    .where("id", "=", projectId)
    .execute();
  return true;
}
