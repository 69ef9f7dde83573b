/**
 * "What would these rules do?": regroups a project's recent events with draft rules and compares
 * the result with the issues the events are in now. Events whose hashes overlap form one draft
 * issue (the digest joins an issue owning any of an event's hashes), so the count is what the
 * digest would create for these events from scratch.
 */
import type { NormalizedEvent } from "../event";
import { groupEvent, type ProjectGroupingRules } from "./index";
import type { HashFn } from "./types";

export interface PreviewInput {
  issueId: number;
  event: NormalizedEvent;
}

export interface GroupingPreview {
  events: number;
  /** distinct issues the events are in now */
  currentIssues: number;
  /** issues the draft rules would make of the same events */
  draftIssues: number;
  /** groups of current issues the draft rules would put together (largest first, at most 20) */
  merges: number[][];
  /** current issues the draft rules would split, with the number of parts (at most 20) */
  splits: Array<{ issueId: number; parts: number }>;
}

function find(parent: number[], i: number): number {
  let r = i;
  while (parent[r] !== r) r = parent[r] as number;
  let j = i;
  while (parent[j] !== r) {
    const next = parent[j] as number;
    parent[j] = r;
    j = next;
  }
  return r;
}

export function previewGrouping(inputs: PreviewInput[], version: string, rules: ProjectGroupingRules, hash: HashFn): GroupingPreview {
  const parent = inputs.map((_e, i) => i);
  const owner = new Map<string, number>();
  inputs.forEach((input, i) => {
    for (const h of groupEvent(input.event, version, hash, rules).hashes) {
      const o = owner.get(h);
      if (o === undefined) owner.set(h, i);
      else parent[find(parent, i)] = find(parent, o);
    }
  });
  const issuesByGroup = new Map<number, Set<number>>();
  const groupsByIssue = new Map<number, Set<number>>();
  inputs.forEach((input, i) => {
    const g = find(parent, i);
    if (!issuesByGroup.has(g)) issuesByGroup.set(g, new Set());
    issuesByGroup.get(g)?.add(input.issueId);
    if (!groupsByIssue.has(input.issueId)) groupsByIssue.set(input.issueId, new Set());
    groupsByIssue.get(input.issueId)?.add(g);
  });
  const merges = [...issuesByGroup.values()]
    .filter((s) => s.size > 1)
    .map((s) => [...s].sort((a, b) => a - b))
    .sort((a, b) => b.length - a.length)
    .slice(0, 20);
  const splits = [...groupsByIssue.entries()]
    .filter(([, s]) => s.size > 1)
    .map(([issueId, s]) => ({ issueId, parts: s.size }))
    .sort((a, b) => b.parts - a.parts)
    .slice(0, 20);
  return { events: inputs.length, currentIssues: groupsByIssue.size, draftIssues: issuesByGroup.size, merges, splits };
}
