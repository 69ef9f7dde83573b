/**
 * Queries by Next.js digest (`events.digest` holds the match key: the digest without `@E<code>`,
 * indexed with the project) and the issue flags the Next.js classifier sets.
 */
import type { Db } from "../db";
import type { Tx } from "../dialect";
import { rowColumns, type StoredEvent, toStored } from "./events";

const columns = [...rowColumns, "payload"] as const;

export interface DigestEventQuery {
  projectIds: number[];
  /** the match key (no `@E` suffix) */
  key: string;
  limit: number;
  /** epoch ms window on received_at, both ends inclusive */
  from?: number;
  to?: number;
  excludeIssueId?: number;
}

/** Events of these projects with this digest, newest first, with their payloads. */
export async function findEventsByDigest(db: Db, q: DigestEventQuery): Promise<StoredEvent[]> {
  if (q.projectIds.length === 0 || q.key === "") return [];
  let query = db.kysely.selectFrom("events").select(columns).where("project_id", "in", q.projectIds).where("digest", "=", q.key);
  if (q.from !== undefined) query = query.where("received_at", ">=", q.from);
  if (q.to !== undefined) query = query.where("received_at", "<=", q.to);
  if (q.excludeIssueId !== undefined) query = query.where("issue_id", "!=", q.excludeIssueId);
  const rows = await query
    .orderBy("received_at", "desc")
    .orderBy("id", "desc")
    .limit(Math.max(1, Math.min(q.limit, 500)))
    .execute();
  return rows.map(toStored);
}

export interface IssueDigest {
  key: string;
  /** epoch ms of the issue's first and last event with this digest (within the scanned events) */
  first: number;
  last: number;
  count: number;
}

/**
 * The digests on an issue's newest `scan` events, most recent first. Bounded on purpose (no
 * `digest is not null` in SQL, which would walk every event of a huge issue without digests): an
 * issue with a million events costs the same as one with a hundred.
 */
export async function recentIssueDigests(db: Db, issueId: number, limit = 10, scan = 500): Promise<IssueDigest[]> {
  const rows = await db.kysely
    .selectFrom("events")
    .select(["digest", "received_at"])
    .where("issue_id", "=", issueId)
    .orderBy("received_at", "desc")
    .limit(scan)
    .execute();
  const byKey = new Map<string, IssueDigest>();
  for (const r of rows) {
    if (!r.digest) continue;
    const at = Number(r.received_at);
    const d = byKey.get(r.digest);
    if (!d) byKey.set(r.digest, { key: r.digest, first: at, last: at, count: 1 });
    else {
      d.first = Math.min(d.first, at);
      d.last = Math.max(d.last, at);
      d.count += 1;
    }
  }
  return [...byKey.values()].slice(0, limit);
}

function parseFlags(s: string | null): string[] {
  if (!s) return [];
  try {
    const v: unknown = JSON.parse(s);
    return Array.isArray(v) ? v.filter((f): f is string => typeof f === "string") : [];
  } catch {
    return [];
  }
}

/** Adds a flag to an issue (inside the digest transaction); a flag already there is left alone. */
export async function addIssueFlag(tx: Tx, issueId: number, flag: string): Promise<void> {
  const row = await tx.selectFrom("issues").select("flags").where("id", "=", issueId).executeTakeFirst();
  if (!row) return;
  const flags = parseFlags(row.flags);
  if (flags.includes(flag)) return;
  await tx
    .updateTable("issues")
    .set({ flags: JSON.stringify([...flags, flag].sort()) })
    .where("id", "=", issueId)
    .execute();
}

/** The flags of these issues (issues without any are absent from the map). */
export async function issueFlags(db: Db, issueIds: number[]): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>();
  if (issueIds.length === 0) return out;
  const rows = await db.kysely
    .selectFrom("issues")
    .select(["id", "flags"])
    .where("id", "in", issueIds)
    .where("flags", "is not", null)
    .execute();
  for (const r of rows) {
    const flags = parseFlags(r.flags);
    if (flags.length > 0) out.set(Number(r.id), flags);
  }
  return out;
}

export interface IssueHead {
  id: number;
  projectId: number;
  shortId: number;
  title: string;
}

/** Id, project, short id and title of these issues (for listing events with their issue). */
export async function issueHeads(db: Db, issueIds: number[]): Promise<Map<number, IssueHead>> {
  const out = new Map<number, IssueHead>();
  if (issueIds.length === 0) return out;
  const rows = await db.kysely.selectFrom("issues").select(["id", "project_id", "short_id", "title"]).where("id", "in", issueIds).execute();
  for (const r of rows)
    out.set(Number(r.id), { id: Number(r.id), projectId: Number(r.project_id), shortId: Number(r.short_id), title: r.title });
  return out;
}

export interface DigestCounterpart {
  issueId: number;
  shortId: number;
  title: string;
  culprit: string;
  /** `errata.digest.side` of its newest event with the digest */
  side: "server" | "client" | null;
}

/**
 * The issues of this project, other than `excludeIssueId`, whose events since `from` carry this
 * digest key (newest first, one per issue, at most `limit` events scanned). Read inside the digest
 * transaction to tell an alert about the other side of a Next.js error.
 */
export async function digestCounterparts(
  tx: Tx,
  q: { projectId: number; key: string; excludeIssueId: number; from: number; limit?: number },
): Promise<DigestCounterpart[]> {
  const rows = await tx
    .selectFrom("events as e")
    .innerJoin("issues as i", "i.id", "e.issue_id")
    .select([
      ...columns.map((c) => `e.${c}` as const),
      "i.short_id as issue_short_id",
      "i.title as issue_title",
      "i.culprit as issue_culprit",
    ])
    .where("e.project_id", "=", q.projectId)
    .where("e.digest", "=", q.key)
    .where("e.received_at", ">=", q.from)
    .where("e.issue_id", "!=", q.excludeIssueId)
    .orderBy("e.received_at", "desc")
    .limit(q.limit ?? 20)
    .execute();
  const out = new Map<number, DigestCounterpart>();
  for (const r of rows) {
    const issueId = Number(r.issue_id);
    if (out.has(issueId)) continue;
    const stored = toStored(r);
    const meta = (stored.event.errata as { digest?: { side?: unknown } } | undefined)?.digest;
    const side = meta?.side === "server" || meta?.side === "client" ? meta.side : null;
    out.set(issueId, { issueId, shortId: Number(r.issue_short_id), title: r.issue_title, culprit: r.issue_culprit ?? "", side });
  }
  return [...out.values()];
}
