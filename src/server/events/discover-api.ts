/**
 * Sentry's query API over what Errata keeps (issue 28): `GET /organizations/{org}/events/` and
 * `…/events-stats/` for the errors, spans and logs datasets. The request is planned in
 * src/server/sentry-api/discover/plan.ts, the rows are read (bounded: time window and a row cap) by
 * src/storage/events/discover.ts, and grouped/sorted in src/server/sentry-api/discover/evaluate.ts.
 * Needs event.read; only projects the viewer may see are read, and a project id the viewer cannot
 * see counts nothing (never an error that would confirm it exists).
 */
import { formatShortId } from "../../core/alerts/message";
import type { NormalizedEvent } from "../../core/event";
import { isObj } from "../../core/normalize/coerce";
import { statTagsOf } from "../../core/search/event-tags";
import type { Db } from "../../storage/db";
import { type DiscoverEvent, type DiscoverLog, type DiscoverSpan, scanEvents, scanLogs, scanSpans } from "../../storage/events/discover";
import { type MetricRow, scanMetrics } from "../../storage/events/trace-metrics";
import { type FeedbackRow, listFeedback } from "../../storage/feedback/feedback";
import { getIssueByShortId } from "../../storage/issues/issues";
import { tagKeysWithValueCounts } from "../../storage/issues/stats";
import type { ProjectRow } from "../../storage/orgs/projects";
import { requirePermission } from "../access/access";
import { parseShortId } from "../issues/redirects";
import { type DiscoverRow, evaluate, OTHER_KEY, rowMatches, statsSeries, topGroups } from "../sentry-api/discover/evaluate";
import {
  type DiscoverField,
  type DiscoverFilter,
  type DiscoverPlan,
  discoverMeta,
  discoverPlan,
  statsPlan,
} from "../sentry-api/discover/plan";
import { type SentryAttribute, type SentryTagKey, sentryTagKey, traceItemAttributes } from "../sentry-api/discover/tag-keys";
import { logItemId, SEVERITY_NUMBER } from "../sentry-api/shapes/trace";
import type { OrgSummary, Viewer } from "../types";

/** Rows read per request at most: with payloads (tags, user fields) fewer, they are decompressed. */
export const SCAN_CAP = { rows: 20_000, withPayload: 2_000, feedback: 1_000 };

export interface DiscoverPage {
  data: Array<Record<string, unknown>>;
  meta: ReturnType<typeof discoverMeta> & { dataset: string; isMetricsData: false };
  /** Sentry's cursor of the next page, null on the last */
  nextCursor: string | null;
  /** the row cap was reached: aggregates cover only the newest rows read */
  truncated: boolean;
}

export type StatsSeries = Array<[number, Array<{ count: unknown }>]>;

export interface DiscoverStats {
  body: Record<string, unknown>;
  truncated: boolean;
}

export interface DiscoverApi {
  events(viewer: Viewer, orgSlug: string, q: URLSearchParams): Promise<DiscoverPage>;
  stats(viewer: Viewer, orgSlug: string, q: URLSearchParams): Promise<DiscoverStats>;
  /** Sentry's org tag keys (`…/tags/`) over the projects the viewer sees (`project=` narrows). */
  tagKeys(viewer: Viewer, orgSlug: string, q: URLSearchParams): Promise<SentryTagKey[]>;
  /** Sentry's trace-item attribute names (`…/trace-items/attributes/`): what the query API answers. */
  attributes(viewer: Viewer, orgSlug: string, q: URLSearchParams): Promise<SentryAttribute[]>;
}

export interface DiscoverApiDeps {
  db: Db;
  now: () => number;
  membershipOrThrow(viewer: Viewer, orgSlug: string): Promise<OrgSummary>;
  projectsOf(org: OrgSummary): Promise<Map<number, ProjectRow>>;
}

type Obj = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : typeof v === "number" ? String(v) : null);

/** Error-dataset columns read from the payload (the rest are event-row columns). */
const PAYLOAD_COLUMNS = new Set([
  "transaction",
  "user.email",
  "user.display",
  "user.id",
  "user.username",
  "user.ip",
  "error.type",
  "error.value",
  "error.handled",
]);

function fieldsOf(plan: DiscoverPlan): DiscoverField[] {
  const out: DiscoverField[] = [...plan.fields, ...plan.filters.map((f) => f.field)];
  for (const f of plan.fields) if (f.kind === "aggregate" && f.arg) out.push(f.arg);
  return out;
}

function needsPayload(plan: DiscoverPlan): boolean {
  return fieldsOf(plan).some((f) => f.kind === "tag" || (f.kind === "column" && PAYLOAD_COLUMNS.has(f.column)));
}

/** Plain `column:value` conditions (no negation, wildcard or comparison) storage can apply. */
function equalities(plan: DiscoverPlan, column: string): string[] | undefined {
  const hits = plan.filters.filter(
    (f: DiscoverFilter) =>
      f.field.kind === "column" && f.field.column === column && !f.negated && f.op === "eq" && f.values.every((v) => !v.includes("*")),
  );
  if (hits.length === 0) return undefined;
  // Several conditions on one column are AND'ed: the intersection.
  return hits.map((h) => h.values).reduce((a, b) => a.filter((v) => b.includes(v)));
}

function lastException(ev: Obj | null): Obj | null {
  const values = isObj(ev?.exception) ? (ev.exception as Obj).values : undefined;
  return Array.isArray(values) && isObj(values.at(-1)) ? (values.at(-1) as Obj) : null;
}

function errorRow(e: DiscoverEvent, project: ProjectRow | undefined): DiscoverRow {
  let tags: Map<string, string> | null = null;
  const ev = e.event;
  const user = isObj(ev?.user) ? (ev.user as Obj) : {};
  const tagMap = () => {
    tags ??= new Map(ev ? statTagsOf(ev as unknown as NormalizedEvent) : []);
    return tags;
  };
  const columns: Record<string, () => string | number | boolean | null> = {
    id: () => e.eventId,
    title: () => e.title,
    message: () => str(isObj(ev?.logentry) ? (ev.logentry as Obj).formatted : null) ?? e.title,
    project: () => project?.slug ?? null,
    "project.id": () => e.projectId,
    timestamp: () => e.timestamp,
    level: () => e.level,
    environment: () => e.environment,
    release: () => e.release,
    culprit: () => e.culprit,
    platform: () => e.platform,
    transaction: () => str(ev?.transaction),
    issue: () => (project ? formatShortId(project.slug, e.shortId) : null),
    "issue.id": () => e.issueId,
    trace: () => e.traceId,
    "event.type": () => "error",
    user: () => e.userKey,
    "user.email": () => str(user.email),
    "user.id": () => str(user.id),
    "user.username": () => str(user.username),
    "user.ip": () => str(user.ip_address),
    "user.display": () => str(user.email) ?? str(user.username) ?? str(user.id) ?? str(user.ip_address),
    "error.type": () => str(lastException(ev)?.type),
    "error.value": () => str(lastException(ev)?.value),
    "error.handled": () => {
      const m = lastException(ev)?.mechanism;
      return isObj(m) && typeof m.handled === "boolean" ? m.handled : null;
    },
  };
  return {
    column: (name) => columns[name]?.() ?? null,
    tag: (key) => {
      if (!ev) return key === "level" ? e.level : key === "environment" ? e.environment : key === "release" ? e.release : null;
      return tagMap().get(key) ?? null;
    },
    text: () => `${e.title}\n${e.culprit}`,
    at: () => e.timestamp,
  };
}

function parseAttributes(json: string): Obj {
  try {
    const v: unknown = JSON.parse(json);
    return isObj(v) ? v : {};
  } catch {
    return {};
  }
}

function attribute(attrs: () => Obj, key: string): string | null {
  const a = attrs();
  const v = a[key] ?? a[`sentry.${key}`];
  return typeof v === "string" || typeof v === "number" || typeof v === "boolean" ? String(v) : null;
}

function spanRow(s: DiscoverSpan, project: ProjectRow | undefined): DiscoverRow {
  let attrs: Obj | null = null;
  const get = () => {
    attrs ??= parseAttributes(s.attributes);
    return attrs;
  };
  const columns: Record<string, () => string | number | boolean | null> = {
    id: () => s.spanId,
    trace: () => s.traceId,
    parent_span: () => s.parentSpanId,
    transaction: () => s.segmentName,
    "span.op": () => s.op,
    "span.description": () => s.name,
    "span.status": () => s.status,
    "span.duration": () => Math.max(0, s.end - s.start),
    is_transaction: () => s.parentSpanId === null,
    timestamp: () => s.start,
    "precise.start_ts": () => s.start / 1000,
    "precise.finish_ts": () => s.end / 1000,
    project: () => project?.slug ?? null,
    "project.id": () => s.projectId,
  };
  return {
    column: (name) => columns[name]?.() ?? null,
    tag: (key) => attribute(get, key),
    text: () => `${s.name}\n${s.op ?? ""}\n${s.segmentName ?? ""}`,
    at: () => s.start,
  };
}

/** A metric sample (`dataset=tracemetrics`): its identity columns, value and attributes as tags. */
function metricRow(m: MetricRow, project: ProjectRow | undefined): DiscoverRow {
  let attrs: Obj | null = null;
  const get = () => {
    attrs ??= parseAttributes(m.attributes);
    return attrs;
  };
  const columns: Record<string, () => string | number | boolean | null> = {
    id: () => String(m.id).padStart(32, "0"),
    "metric.name": () => m.name,
    "metric.type": () => m.type,
    "metric.unit": () => m.unit,
    value: () => m.value,
    trace: () => m.traceId,
    span_id: () => m.spanId,
    timestamp: () => m.timestamp,
    timestamp_precise: () => m.timestamp * 1_000_000,
    observed_timestamp: () => m.receivedAt,
    project: () => project?.slug ?? null,
    "project.id": () => m.projectId,
  };
  return {
    column: (name) => columns[name]?.() ?? null,
    tag: (key) => attribute(get, key),
    text: () => m.name,
    at: () => m.timestamp,
  };
}

function logRow(l: DiscoverLog, project: ProjectRow | undefined): DiscoverRow {
  let attrs: Obj | null = null;
  const get = () => {
    attrs ??= parseAttributes(l.attributes);
    return attrs;
  };
  const columns: Record<string, () => string | number | boolean | null> = {
    id: () => logItemId(l.dedupe),
    message: () => l.body,
    severity: () => l.level,
    severity_number: () => SEVERITY_NUMBER[l.level.toLowerCase()] ?? null,
    trace: () => l.traceId,
    span_id: () => l.spanId,
    timestamp: () => l.timestamp,
    // Nanoseconds, as the `sentry` CLI orders and de-duplicates by it.
    timestamp_precise: () => l.timestamp * 1_000_000,
    observed_timestamp: () => l.receivedAt,
    project: () => project?.slug ?? null,
    "project.id": () => l.projectId,
  };
  return {
    column: (name) => columns[name]?.() ?? null,
    tag: (key) => attribute(get, key),
    text: () => l.body,
    at: () => l.timestamp,
  };
}

/** A user feedback as an issue-platform occurrence (Sentry keeps feedback as `feedback` issues). */
function feedbackRow(f: FeedbackRow, project: ProjectRow | undefined): DiscoverRow {
  const columns: Record<string, () => string | number | boolean | null> = {
    id: () => f.feedbackId,
    title: () => "User Feedback",
    message: () => f.comments,
    timestamp: () => f.createdAt,
    "issue.category": () => "feedback",
    "issue.type": () => "feedback",
    "user.email": () => f.email || null,
    "user.name": () => f.name || null,
    "user.display": () => f.email || f.name || null,
    url: () => f.url,
    project: () => project?.slug ?? null,
    "project.id": () => f.projectId,
  };
  return {
    column: (name) => columns[name]?.() ?? null,
    tag: (key) => (key === "url" ? f.url : null),
    text: () => `${f.comments}\n${f.name}\n${f.email}`,
    at: () => f.createdAt,
  };
}

export function createDiscoverApi(deps: DiscoverApiDeps): DiscoverApi {
  const { db } = deps;

  async function projectScope(viewer: Viewer, orgSlug: string, q: URLSearchParams) {
    const org = await deps.membershipOrThrow(viewer, orgSlug);
    requirePermission(viewer, org, "event.read");
    const visible = await deps.projectsOf(org);
    const asked = q
      .getAll("project")
      .flatMap((p) => p.split(","))
      .filter((p) => p !== "" && p !== "-1");
    const projectIds = asked.length > 0 ? asked.map(Number).filter((id) => visible.has(id)) : [...visible.keys()];
    return { visible, projectIds };
  }

  /** `issue:WEB-12` conditions → issue ids (storage narrows to them); an unknown short id matches nothing. */
  async function issueIds(plan: DiscoverPlan, visible: Map<number, ProjectRow>): Promise<number[] | undefined> {
    const shortIds = equalities(plan, "issue");
    if (!shortIds) return undefined;
    const ids: number[] = [];
    for (const ref of shortIds.slice(0, 50)) {
      const parsed = parseShortId(ref);
      const project = parsed ? [...visible.values()].find((p) => p.slug.toLowerCase() === parsed.slug) : undefined;
      const issue = parsed && project ? await getIssueByShortId(db, project.id, parsed.counter) : undefined;
      if (issue) ids.push(issue.id);
    }
    return ids.length > 0 ? ids : [-1];
  }

  async function rowsOf(plan: DiscoverPlan, visible: Map<number, ProjectRow>, projectIds: number[], environments: string[]) {
    const scan = { projectIds, start: plan.range.start, end: plan.range.end };
    if (plan.dataset === "errors") {
      const payload = needsPayload(plan);
      const limit = payload ? SCAN_CAP.withPayload : SCAN_CAP.rows;
      const numeric = (vs: string[] | undefined) => vs?.map(Number).filter(Number.isSafeInteger);
      const byIssue = await issueIds(plan, visible);
      const byIssueId = numeric(equalities(plan, "issue.id"));
      const events = await scanEvents(db, {
        ...scan,
        limit,
        payload,
        where: {
          level: equalities(plan, "level"),
          environment: environments.length > 0 ? environments : equalities(plan, "environment"),
          release: equalities(plan, "release"),
          issueId: byIssue && byIssueId ? byIssue.filter((i) => byIssueId.includes(i)).concat(-1) : (byIssue ?? byIssueId),
          traceId: equalities(plan, "trace"),
          eventId: equalities(plan, "id")?.map((v) => v.replace(/-/g, "").toLowerCase()),
        },
      });
      return { rows: events.map((e) => errorRow(e, visible.get(e.projectId))), truncated: events.length >= limit };
    }
    const extra: DiscoverFilter[] =
      environments.length > 0
        ? [
            {
              field: { kind: "tag", name: "environment", key: "environment", type: "string" },
              values: environments,
              op: "eq",
              negated: false,
            },
          ]
        : [];
    plan.filters.push(...extra);
    if (plan.dataset === "issuePlatform") {
      const feedback = await listFeedback(db, { projectIds, range: plan.range, limit: SCAN_CAP.feedback });
      return { rows: feedback.map((f) => feedbackRow(f, visible.get(f.projectId))), truncated: feedback.length >= SCAN_CAP.feedback };
    }
    if (plan.dataset === "spans") {
      const spans = await scanSpans(db, {
        ...scan,
        limit: SCAN_CAP.rows,
        traceId: equalities(plan, "trace"),
        spanId: equalities(plan, "id"),
      });
      return { rows: spans.map((s) => spanRow(s, visible.get(s.projectId))), truncated: spans.length >= SCAN_CAP.rows };
    }
    if (plan.dataset === "tracemetrics") {
      const names = equalities(plan, "metric.name");
      const metrics = await scanMetrics(db, { ...scan, limit: SCAN_CAP.rows, names, traceIds: equalities(plan, "trace") });
      return { rows: metrics.map((m) => metricRow(m, visible.get(m.projectId))), truncated: metrics.length >= SCAN_CAP.rows };
    }
    const logs = await scanLogs(db, {
      ...scan,
      limit: SCAN_CAP.rows,
      traceId: equalities(plan, "trace"),
      level: equalities(plan, "severity"),
    });
    return { rows: logs.map((l) => logRow(l, visible.get(l.projectId))), truncated: logs.length >= SCAN_CAP.rows };
  }

  return {
    async events(viewer, orgSlug, q) {
      // Access first: an outsider learns nothing, not even that the request was malformed.
      const { visible, projectIds } = await projectScope(viewer, orgSlug, q);
      const plan = discoverPlan(q, deps.now());
      const environments = q.getAll("environment").filter((e) => e !== "");
      const { rows, truncated } = await rowsOf(plan, visible, projectIds, environments);
      const result = evaluate(
        plan,
        rows.filter((r) => rowMatches(plan, r)),
      );
      return {
        data: result.data,
        meta: { ...discoverMeta(plan.fields), dataset: plan.dataset, isMetricsData: false },
        nextCursor: result.hasMore ? `0:${plan.offset + plan.limit}:0` : null,
        truncated,
      };
    },

    async tagKeys(viewer, orgSlug, q) {
      const { projectIds } = await projectScope(viewer, orgSlug, q);
      return (await tagKeysWithValueCounts(db, projectIds)).map((k) => sentryTagKey(k.key, k.values));
    },

    async attributes(viewer, orgSlug, q) {
      await projectScope(viewer, orgSlug, q);
      return traceItemAttributes(q);
    },

    async stats(viewer, orgSlug, q) {
      const { visible, projectIds } = await projectScope(viewer, orgSlug, q);
      const { plan, axes, interval, top } = statsPlan(q, deps.now());
      const environments = q.getAll("environment").filter((e) => e !== "");
      // The group-by and ranking fields are read too (a tag or user field needs the payload).
      const read = top ? { ...plan, fields: [...plan.fields, ...top.groupBy, top.sort.field] } : plan;
      const { rows, truncated } = await rowsOf(read, visible, projectIds, environments);
      const matching = rows.filter((r) => rowMatches(plan, r));
      const aggregates = axes.filter((a): a is DiscoverField & { kind: "aggregate" } => a.kind === "aggregate");
      const start = Math.floor(plan.range.start / 1000);
      const end = Math.floor(plan.range.end / 1000);
      /** One chart's body: the series itself for one axis; several: keyed by axis, as Sentry answers. */
      const body = (groupRows: DiscoverRow[], order?: number): Record<string, unknown> => {
        const series = statsSeries(aggregates, groupRows, plan.range, interval);
        const one = (name: string) => ({
          data: series.get(name) ?? [],
          ...(order !== undefined && axes.length === 1 ? { order } : {}),
          start,
          end,
          isMetricsData: false,
          meta: discoverMeta(axes.filter((a) => a.name === name)),
        });
        if (axes.length === 1) return one((axes[0] as DiscoverField).name);
        const byAxis: Record<string, unknown> = Object.fromEntries(axes.map((a) => [a.name, one(a.name)]));
        return order !== undefined ? { ...byAxis, order } : byAxis;
      };
      if (!top) return { body: body(matching), truncated };
      // Sentry's top events: {"<group values>": {data, order, …}, …} (and `Other` when asked for).
      const { groups, other } = topGroups(top, matching, plan.range.end - plan.range.start);
      const grouped: Record<string, unknown> = Object.fromEntries(groups.map((g, i) => [g.key, body(g.rows, i)]));
      if (top.other && other.length > 0) grouped[OTHER_KEY] = body(other, groups.length);
      return { body: grouped, truncated };
    },
  };
}
