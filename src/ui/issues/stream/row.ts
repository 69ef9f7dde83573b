/**
 * One row of the issue stream as the client table receives it: everything pre-formatted on the
 * server (relative times, counts, the sparkline's SVG path), so the client renders without
 * clocks or maths and hydration never disagrees.
 */
import type { StreamIssue, StreamPage } from "@/server/issues/stream";
import type { UserRef } from "@/server/types";
import { absoluteTime, compactCount, countOf, relativeTime } from "../../kit/format";
import { SPARK_H, SPARK_W, sparkBars } from "../../kit/sparkline-path";

export interface StreamRow {
  id: number;
  href: string;
  shortId: string;
  title: string;
  culprit: string;
  level: string;
  status: string;
  substatus: string;
  count: number;
  countText: string;
  usersText: string;
  lastSeen: [text: string, title: string];
  firstSeen: [text: string, title: string];
  /** epoch ms: the oldest selected issue is the one a merge keeps */
  firstSeenAt: number;
  /** quiet outline badges: new, regressed, ignored, resolved, deploy-skew, digest */
  badges: string[];
  spark: string;
  sparkLabel: string;
  assignee: { name: string; initials: string } | null;
  /** the linked tracker issue */
  linked: { url: string; label: string } | null;
}

export function initials(name: string): string {
  // A team (`#slug`): the hash and the team's first letter.
  if (name.startsWith("#")) return `#${(name[1] ?? "").toUpperCase()}`;
  const parts = name
    .trim()
    .split(/[\s@._-]+/)
    .filter(Boolean);
  return ((parts[0]?.[0] ?? "?") + (parts[1]?.[0] ?? "")).toUpperCase();
}

function statusBadge(status: string, substatus: string): string | null {
  if (status === "resolved" || status === "ignored") return status;
  if (substatus === "new" || substatus === "regressed") return substatus;
  return null;
}

export function toStreamRow(
  org: string,
  i: StreamIssue,
  page: Pick<StreamPage, "period">,
  members: Map<string, UserRef>,
  now: number,
  linked: { url: string; label: string } | null = null,
): StreamRow {
  const badges = [statusBadge(i.status, i.substatus), ...(i.flags ?? []), i.hasDigest ? "digest" : null].filter(
    (b): b is string => b !== null,
  );
  const inPeriod = i.spark.reduce((a, b) => a + b, 0);
  const assignee = i.assigneeUserId ? members.get(i.assigneeUserId) : undefined;
  return {
    id: i.id,
    href: `/${encodeURIComponent(org)}/issues/${i.id}`,
    shortId: i.shortId,
    title: i.title || "(no title)",
    culprit: i.culprit,
    level: i.level,
    status: i.status,
    substatus: i.substatus,
    count: i.count,
    countText: compactCount(i.count),
    usersText: compactCount(i.userCount),
    lastSeen: [relativeTime(i.lastSeen, now), absoluteTime(i.lastSeen)],
    firstSeen: [relativeTime(i.firstSeen, now), absoluteTime(i.firstSeen)],
    firstSeenAt: i.firstSeen,
    badges,
    spark: sparkBars(i.spark, SPARK_W, SPARK_H),
    sparkLabel: `${countOf(inPeriod, "event")} in the last ${page.period === "14d" ? "14 days" : "24 hours"}`,
    linked,
    assignee: assignee
      ? { name: assignee.name || assignee.email, initials: initials(assignee.name || assignee.email) }
      : i.assigneeUserId
        ? { name: "Former member", initials: "?" }
        : null,
  };
}
