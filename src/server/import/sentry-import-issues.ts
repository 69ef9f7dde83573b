/**
 * `--issues --since 30d` of an import from Sentry (issue 32): each issue seen within the period
 * with its status, assignee, first/last seen and counts, and its latest events (capped per issue).
 *
 * An imported event takes Errata's usual path up to storage — normalised, scrubbed with the
 * project's settings, grouped with its grouping version and rules — and is stored under the
 * imported issue, whose identity is kept: the source's hashes and the Errata hashes of its events
 * point at it. So an event the SDK sends after the switch lands in the same issue, and a resolved
 * one regresses as it would have on the source. Counts and dates are the source's, not recounted
 * from the few events that move. One transaction per issue; `import_links` finds it again.
 */
import { createHash } from "node:crypto";
import { AppError } from "../../core/errors";
import type { NormalizedEvent } from "../../core/event";
import { groupEventForProject, groupingRulesOf } from "../../core/grouping";
import type { ImportReport } from "../../core/import/sentry";
import { importedSlug } from "../../core/import/sentry";
import {
  importedIssueState,
  importedLevel,
  importedShortNumber,
  type SentryIssue,
  sdkEventFromApi,
  sentryApiEventSchema,
  sentryHashSchema,
  sentryIssueSchema,
  shortIdAlias,
  shortIdCeiling,
} from "../../core/import/sentry-issues";
import { epochMs } from "../../core/import/sentry-releases";
import { normalizeEvent } from "../../core/normalize-event";
import { readScrubSettings, scrubEvent } from "../../core/scrub/scrub-event";
import type { Tx } from "../../storage/dialect";
import { encodePayload, insertEvents, type NewEvent } from "../../storage/events/events";
import {
  findImportLink,
  type ImportedIssueFields,
  issueEventBounds,
  projectGroupingOf,
  putImportLink,
  raiseShortIdCounter,
  readImportedIssue,
  shortIdTaken,
  writeImportedIssue,
} from "../../storage/import/sentry-import";
import { addIssueHashes, insertIssue } from "../../storage/issues/issues";
import { membersByEmail, teamsBySlug } from "../../storage/ownership/ownership";
import type { SentryClient } from "./sentry-client";

export interface SourceIssue {
  issue: SentryIssue;
  /** the source's grouping hashes (empty when it does not answer them) */
  hashes: string[];
  /** the issue's latest events, newest first, as SDK events */
  events: Array<Record<string, unknown>>;
}

const sha256Hex = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");

/** The project's issues last seen since `cutoff`, newest first, each with up to `cap` latest events. */
export async function readIssues(client: SentryClient, org: string, project: string, cutoff: number, cap: number): Promise<SourceIssue[]> {
  const o = encodeURIComponent(org);
  const seenSince = (i: SentryIssue) => (epochMs(i.lastSeen) ?? 0) >= cutoff;
  // Last seen, newest first: paging stops at the first page reaching past the cut-off.
  const issues = (
    await client.list(
      `/api/0/projects/${o}/${encodeURIComponent(project)}/issues/?query=&sort=date&limit=100`,
      sentryIssueSchema,
      undefined,
      (page) => page.some((i) => !seenSince(i)),
    )
  ).filter(seenSince);
  const out: SourceIssue[] = [];
  for (const issue of issues) {
    const base = `/api/0/organizations/${o}/issues/${encodeURIComponent(issue.id)}`;
    const hashes = ((await client.list(`${base}/hashes/`, sentryHashSchema).catch(optional)) ?? []).map((h) => h.id);
    const events = (
      await client.get<Array<Record<string, unknown>>>(
        `${base}/events/?full=true&limit=${cap}&per_page=${cap}`,
        sentryApiEventSchema.array(),
      )
    )
      .slice(0, cap)
      .map(sdkEventFromApi)
      .filter((e): e is Record<string, unknown> => e !== null);
    out.push({ issue, hashes: [...new Set(hashes)].slice(0, 100), events });
  }
  return out;
}

/**
 * The short id of the project's newest issue (Sentry's `sort=new`), whatever its age: the counter
 * here starts above it, so no issue that arrives after the switch takes a number an import keeps.
 * Null when the source does not answer it.
 */
export async function newestShortId(client: SentryClient, org: string, project: string): Promise<string | null> {
  const path = `/api/0/projects/${encodeURIComponent(org)}/${encodeURIComponent(project)}/issues/?query=&sort=new&limit=1`;
  const page = await client.get(path, sentryIssueSchema.array()).catch(optional);
  // The highest of what came back: a source that ignores `sort` still answers a page of issues.
  return (page ?? []).reduce<string | null>(
    (best, i) => (shortIdCeiling(i.shortId) > shortIdCeiling(best) ? (i.shortId ?? null) : best),
    null,
  );
}

function optional(err: unknown): null {
  if (err instanceof AppError && (err.code === "import_source_not_found" || err.code === "import_source_unauthorized")) return null;
  throw err;
}

interface PreparedEvent {
  event: NormalizedEvent;
  row: Omit<NewEvent, "issueId">;
  hashes: string[];
}

/** One issue with its events (one transaction): created, updated or unchanged. */
export async function applyIssue(
  tx: Tx,
  at: { orgId: number; projectId: number; projectSlug: string; now: number },
  s: SourceIssue,
  report: ImportReport,
): Promise<void> {
  const g = await projectGroupingOf(tx, at.projectId);
  const grouping = { version: g.version, previous: g.previous, switchedAt: g.switchedAt, transitionDays: 0 };
  const rules = groupingRulesOf(g.settings);
  const scrub = readScrubSettings(g.settings);
  const prepared: PreparedEvent[] = [];
  for (const raw of s.events) {
    const receivedAt = epochMs(String(raw.timestamp ?? "")) ?? at.now;
    const event = scrubEvent(normalizeEvent(raw, { receivedAt, clientIp: null, eventId: String(raw.event_id) }), scrub);
    const result = groupEventForProject(event, grouping, receivedAt, sha256Hex, rules);
    event.errata.grouping = {
      version: result.version,
      hash: result.hashes[0] ?? "",
      source: result.source,
      components: result.components,
      hashes: result.hashes,
      variants: result.variants,
    };
    prepared.push({
      event,
      hashes: result.hashes,
      row: {
        projectId: at.projectId,
        eventId: event.event_id,
        receivedAt,
        timestamp: Math.round(event.timestamp * 1000),
        level: event.level,
        platform: event.platform,
        release: event.release ?? null,
        environment: event.environment ?? null,
        title: result.title,
        culprit: result.culprit,
        userKey: userKeyOf(event),
        traceId: typeof event.contexts?.trace?.trace_id === "string" ? event.contexts.trace.trace_id : null,
        digest: null,
        payload: event,
        encoded: encodePayload(event),
      },
    });
  }

  const i = s.issue;
  const name = `${at.projectSlug}/${i.shortId ?? i.id}`;
  const firstSeen = epochMs(i.firstSeen) ?? at.now;
  const lastSeen = epochMs(i.lastSeen) ?? firstSeen;
  const hashes = [...new Set([...s.hashes, ...prepared.flatMap((p) => p.hashes)])];
  const sourceKey = `${at.projectSlug}/${i.id}`;
  const linked = await findImportLink(tx, at.orgId, "issue", sourceKey);
  let before = linked === undefined ? undefined : await readImportedIssue(tx, linked);
  let issueId: number;
  let action: "created" | "updated" | "unchanged" = "unchanged";
  const notes: string[] = [];
  if (!before) {
    const shortId = await keptShortId(tx, at.projectId, i.shortId, notes);
    const made = await insertIssue(tx, {
      projectId: at.projectId,
      title: (i.title ?? "").slice(0, 1000) || "(no title)",
      culprit: (i.culprit ?? "").slice(0, 1000),
      type: "error",
      level: importedLevel(i.level),
      metadata: i.metadata ?? {},
      seenAt: firstSeen,
      release: null,
      hashes,
      groupingVersion: g.version,
      shortId,
    });
    issueId = made.id;
    await putImportLink(tx, { orgId: at.orgId, kind: "issue", sourceKey, localId: issueId, now: at.now });
    if (made.created && shortId === undefined) await aliasShortId(tx, at, issueId, i.shortId, notes);
    before = made.created ? undefined : await readImportedIssue(tx, issueId);
    action = made.created ? "created" : "updated";
  } else {
    issueId = linked as number;
    await addIssueHashes(tx, at.projectId, issueId, hashes, g.version);
  }

  const stored = await insertEvents(
    tx,
    prepared.map((p) => ({ ...p.row, issueId })),
  );
  const bounds = await issueEventBounds(tx, issueId);
  const state = importedIssueState(i);
  notes.unshift(`${prepared.length} latest event${prepared.length === 1 ? "" : "s"}`);
  const assignee = await assigneeOf(tx, at.orgId, i, notes);
  const fields: ImportedIssueFields = {
    title: (i.title ?? before?.title ?? "").slice(0, 1000) || "(no title)",
    culprit: (i.culprit ?? before?.culprit ?? "").slice(0, 1000),
    level: importedLevel(i.level),
    status: state.status,
    substatus: state.substatus,
    firstSeen,
    lastSeen,
    eventCount: Math.max(i.count ?? 0, prepared.length),
    userCount: i.userCount ?? 0,
    resolution: state.resolution ? JSON.stringify(state.resolution) : null,
    ignoreDetails: state.ignore ? JSON.stringify(state.ignore) : null,
    // Resolved when last seen: the source does not say when, and a later event must regress it.
    resolvedAt: state.status === "resolved" ? lastSeen : null,
    ...assignee,
    firstEventId: bounds.first,
    lastEventId: bounds.last,
  };
  // Events that arrived here after the switch moved the issue on: its state and counts are Errata's now.
  const movedOn = before !== undefined && before.lastSeen > lastSeen;
  const next: ImportedIssueFields = movedOn && before ? { ...before, firstEventId: bounds.first, lastEventId: bounds.last } : fields;
  if (movedOn) notes.push("seen here since the switch: its state and counts are kept");
  if (action === "unchanged" && (stored.size > 0 || JSON.stringify(before) !== JSON.stringify(next))) action = "updated";
  await writeImportedIssue(tx, issueId, next);
  report.entries.push({ kind: "issue", name, action, note: notes.join("; ") });
}

/**
 * The source's short id number when it can be kept: decimal, and not taken here by an issue that
 * arrived first (then the report says so). The project's counter goes above it.
 */
async function keptShortId(
  tx: Tx,
  projectId: number,
  sourceShortId: string | null | undefined,
  notes: string[],
): Promise<number | undefined> {
  const n = importedShortNumber(sourceShortId);
  if (n === null) return undefined;
  if (await shortIdTaken(tx, projectId, n)) {
    notes.push(`short id ${sourceShortId} was taken here by an issue that arrived first: a new number was given`);
    return undefined;
  }
  await raiseShortIdCounter(tx, projectId, n + 1);
  return n;
}

/** A short id written in Sentry's base 32 (`SHOP-API-1A`): the new number is named, the old one resolves to the issue. */
async function aliasShortId(
  tx: Tx,
  at: { orgId: number; projectSlug: string; now: number },
  issueId: number,
  sourceShortId: string | null | undefined,
  notes: string[],
): Promise<void> {
  const alias = shortIdAlias(sourceShortId);
  if (alias === null) return;
  await putImportLink(tx, { orgId: at.orgId, kind: "short_id", sourceKey: `${at.projectSlug}/${alias}`, localId: issueId, now: at.now });
  const row = await tx.selectFrom("issues").select("short_id").where("id", "=", issueId).executeTakeFirst();
  notes.push(
    `${sourceShortId} (Sentry's base 32) is ${at.projectSlug.toUpperCase()}-${Number(row?.short_id ?? 0)} here; the old id still finds it`,
  );
}

/** The digest's user key (pipeline/digest-batch.ts `userKeyOf`; the server may not import the pipeline): id, email, username, IP. */
function userKeyOf(event: NormalizedEvent): string | null {
  const u = event.user;
  if (!u) return null;
  if (u.id) return `id:${u.id}`;
  if (u.email) return `email:${u.email}`;
  if (u.username) return `username:${u.username}`;
  if (u.ip_address) return `ip:${u.ip_address}`;
  return null;
}

/** The source's assignee when they are a member (by email) or a team (by slug) here. */
async function assigneeOf(
  tx: Tx,
  orgId: number,
  i: SentryIssue,
  notes: string[],
): Promise<{ assigneeUserId: string | null; assigneeTeamId: number | null }> {
  const a = i.assignedTo;
  const none = { assigneeUserId: null, assigneeTeamId: null };
  if (!a) return none;
  if (a.type === "team") {
    const slug = importedSlug(a.name ?? "");
    const team = (await teamsBySlug(tx, orgId, [slug])).get(slug);
    if (team) return { assigneeUserId: null, assigneeTeamId: team.id };
    notes.push(`assignee team ${a.name ?? a.id} is not a team here`);
    return none;
  }
  const email = (a.email ?? "").toLowerCase();
  const person = email ? (await membersByEmail(tx, orgId, [email])).get(email) : undefined;
  if (person) return { assigneeUserId: person.id, assigneeTeamId: null };
  notes.push(`assignee ${email || a.name || a.id} is not a member here yet (left unassigned; run again after they accept)`);
  return none;
}
