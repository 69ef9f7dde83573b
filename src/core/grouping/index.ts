/**
 * Versioned grouping registry. A project records its grouping version; a new version is added
 * here (never edited in place) so stored hashes keep their meaning.
 */
import type { NormalizedEvent } from "../event";
import { describeEvent } from "./describe";
import type { GroupingAlgorithm, GroupingResult, HashFn } from "./types";
import { groupingKeyV1 } from "./v1";
import { groupingKeyV2 } from "./v2";

export type { IssueDescription, IssueMetadata } from "./describe";
export { describeEvent } from "./describe";
export { normalizeMessageForGrouping, parameterize } from "./parameterize";
export type { GroupingAlgorithm, GroupingKey, GroupingResult, GroupingVariant, HashFn } from "./types";

export const GROUPING_VERSIONS: Readonly<Record<string, GroupingAlgorithm>> = {
  v1: { version: "v1", key: groupingKeyV1 },
  v2: { version: "v2", key: groupingKeyV2 },
};

/** The version NEW projects get; existing projects keep the one they recorded. */
export const DEFAULT_GROUPING_VERSION = "v2";

/** How long after a project switches versions the previous version's hashes still match. */
export const DEFAULT_GROUPING_TRANSITION_DAYS = 30;

/** Orders versions (`v1` < `v2` < `v10`); unknown shapes compare as strings. */
export function compareGroupingVersions(a: string, b: string): number {
  const na = /^v(\d+)$/.exec(a)?.[1];
  const nb = /^v(\d+)$/.exec(b)?.[1];
  if (na !== undefined && nb !== undefined) return Number(na) - Number(nb);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Groups an event with the given version (unknown versions fall back to the default). */
export function groupEvent(event: NormalizedEvent, version: string, hash: HashFn): GroupingResult {
  const algo = GROUPING_VERSIONS[version] ?? (GROUPING_VERSIONS[DEFAULT_GROUPING_VERSION] as GroupingAlgorithm);
  const { key, source, components, variants } = algo.key(event);
  // The version prefix keeps hashes of different versions from ever colliding.
  const hashes: string[] = [];
  const names: string[] = [];
  for (const v of variants ?? [{ name: "default", key }]) {
    const h = hash(`${algo.version}\u0000${v.key}`);
    if (hashes.includes(h)) continue;
    hashes.push(h);
    names.push(v.name);
  }
  return { ...describeEvent(event), version: algo.version, hashes, source, components, variants: names };
}

/** A project's grouping settings as stored (`projects.grouping_*`). */
export interface ProjectGrouping {
  version: string;
  /** the version before the last switch */
  previous?: string | null;
  /** epoch ms of the last switch */
  switchedAt?: number | null;
  /** how long the previous version keeps matching (default 30 days) */
  transitionDays?: number;
}

/** True while `at` (epoch ms) is within the transition period after a version switch. */
export function inGroupingTransition(g: ProjectGrouping, at: number): boolean {
  if (!g.previous || g.previous === g.version || g.switchedAt === null || g.switchedAt === undefined) return false;
  const days = g.transitionDays ?? DEFAULT_GROUPING_TRANSITION_DAYS;
  return at < g.switchedAt + days * 86_400_000;
}

/**
 * Groups an event for a project: with its version, and during a transition also with the previous
 * version (`result.previous`). `at` is the event's receive time (epoch ms), so a retried batch
 * decides the same way.
 */
export function groupEventForProject(event: NormalizedEvent, g: ProjectGrouping, at: number, hash: HashFn): GroupingResult {
  const result = groupEvent(event, g.version, hash);
  if (!inGroupingTransition(g, at)) return result;
  const prev = groupEvent(event, g.previous as string, hash);
  if (prev.version !== result.version) result.previous = { version: prev.version, hashes: prev.hashes };
  return result;
}
