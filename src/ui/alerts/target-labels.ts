/**
 * How alert targets read (issue 30), for the rule form (a client component) and the alerts page (a
 * server component): constants exported from a "use client" module reach server components only
 * as client references, so they live here.
 */
import type { Fallthrough, TargetType } from "@/core/alerts/types";

export const TARGET_LABELS: Record<TargetType, string> = {
  issue_owners: "Issue owners",
  suspect_commits: "Suspect commit authors",
};

export const FALLTHROUGH_LABELS: Record<Fallthrough, string> = {
  active_members: "recently active members",
  all_members: "all members",
  no_one: "no one",
};
