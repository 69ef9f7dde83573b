/**
 * The issue list's query (the stream and Sentry's issue lists) and what it answers. Its own module
 * so the services that take it (reads, bulk) need not import the services' interface back.
 */

import type { IssueSummary } from "../types";
import type { StatsObject } from "./series-cache";
import type { IssueSort } from "./stream";

export interface IssueListQuery {
  /** Search query (the full SPEC §2 language, src/core/search). */
  query?: string;
  /** Restrict to one project slug. */
  project?: string;
  /** Sentry's sort names: date (last seen, default), new (first seen), freq (events), user (users). */
  sort?: IssueSort;
  limit?: number;
  cursor?: string | null;
  /** Sentry's `project=` ids: only these of the visible projects */
  projectIds?: number[];
  /** Sentry's repeatable `environment=`: any of these */
  environments?: string[];
  /** issues seen in this window (epoch ms): Sentry's statsPeriod / start+end */
  seenWithin?: { start: number; end: number };
  /** a query that is an event id (or, with `shortIdLookup`, a short id) answers that one issue */
  lookup?: { eventId: boolean; shortId: boolean };
  /** event counts per bucket to attach (Sentry's `stats`): 24 hourly or 14 daily, under `key` */
  stats?: { key: "24h" | "14d" | "auto"; series: "24h" | "14d" } | null;
}

/** An issue of the REST list, with Sentry's `stats` when asked: `[[unix seconds, count], …]` per period. */
export type ListedIssue = IssueSummary & { stats?: StatsObject };
