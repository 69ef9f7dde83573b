/**
 * Sentry's event serializer shape (what `GET …/events/{id}/`, `…/issues/{id}/events/latest/` and
 * the event lists answer): `title`, `message`, `entries` (exception, message, breadcrumbs, request),
 * tags as a key/value list (the SDK's and those Sentry derives: environment, level, release,
 * browser, os, runtime, url, user…), contexts, platform, dates as ISO strings. Inside `entries`
 * everything is as Sentry's event API answers it: frames in camelCase with `context` as
 * `[[lineNo, line], …]`, breadcrumb timestamps as ISO text; `release` is an object. The stored
 * payload's own interface keys stay alongside for tools that read them directly (`exception`…).
 */

import type { NormalizedEvent } from "../../../core/event";
import { describeEvent, messageText } from "../../../core/grouping/describe";
import { statTagsOf } from "../../../core/search/event-tags";
import type { SentryUserReport } from "../../feedback/user-feedback-api";
import type { EventDetail } from "../../types";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** The event's tags as Sentry lists them: derived ones (level, environment, release, browser…) and the SDK's, sorted by key. */
function tagList(e: Obj): Array<{ key: string; value: string }> {
  const seen = new Set<string>();
  const out: Array<{ key: string; value: string }> = [];
  for (const [key, value] of statTagsOf(e as unknown as NormalizedEvent)) {
    if (key === "digest" || seen.has(key)) continue;
    seen.add(key);
    out.push({ key, value });
  }
  return out.sort((a, b) => a.key.localeCompare(b.key));
}

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** A frame in Sentry's API shape: camelCase, `context` as `[[lineNo, line], …]` around the line. */
function sentryFrame(f: unknown) {
  const x = isObj(f) ? f : {};
  const lineNo = num(x.lineno);
  const pre = Array.isArray(x.pre_context) ? x.pre_context.map(String) : [];
  const post = Array.isArray(x.post_context) ? x.post_context.map(String) : [];
  const context: Array<[number, string]> =
    lineNo !== null && typeof x.context_line === "string"
      ? [
          ...pre.map((line, i): [number, string] => [lineNo - pre.length + i, line]),
          [lineNo, x.context_line],
          ...post.map((line, i): [number, string] => [lineNo + 1 + i, line]),
        ]
      : [];
  return {
    filename: str(x.filename),
    absPath: str(x.abs_path),
    module: str(x.module),
    package: str(x.package),
    platform: str(x.platform),
    instructionAddr: str(x.instruction_addr),
    symbolAddr: str(x.symbol_addr),
    function: str(x.function),
    rawFunction: str(x.raw_function),
    symbol: str(x.symbol),
    context,
    lineNo,
    colNo: num(x.colno),
    inApp: typeof x.in_app === "boolean" ? x.in_app : false,
    trust: str(x.trust),
    errors: null,
    lock: null,
    sourceLink: null,
    vars: isObj(x.vars) ? x.vars : null,
  };
}

function sentryStacktrace(st: unknown) {
  if (!isObj(st) || !Array.isArray(st.frames)) return null;
  return {
    frames: st.frames.map(sentryFrame),
    framesOmitted: null,
    registers: isObj(st.registers) ? st.registers : null,
    hasSystemFrames: st.frames.some((f) => isObj(f) && f.in_app === false),
  };
}

/** An exception value as Sentry's API answers it: `mechanism` kept, the stacktrace in API shape. */
function sentryException(v: unknown) {
  const x = isObj(v) ? v : {};
  return {
    type: str(x.type),
    value: str(x.value),
    module: str(x.module),
    threadId: x.thread_id ?? null,
    mechanism: isObj(x.mechanism) ? x.mechanism : null,
    stacktrace: sentryStacktrace(x.stacktrace),
    rawStacktrace: null,
  };
}

/** A breadcrumb with Sentry's ISO timestamp (SDKs send epoch seconds). */
function sentryBreadcrumb(b: unknown) {
  const x = isObj(b) ? b : {};
  const t = typeof x.timestamp === "number" ? new Date(x.timestamp * 1000) : typeof x.timestamp === "string" ? new Date(x.timestamp) : null;
  return {
    type: str(x.type) ?? "default",
    category: str(x.category),
    level: str(x.level) ?? "info",
    message: str(x.message),
    data: isObj(x.data) ? x.data : null,
    event_id: str(x.event_id),
    timestamp: t && !Number.isNaN(t.getTime()) ? t.toISOString() : null,
  };
}

function breadcrumbValues(e: Obj): unknown[] {
  const b = e.breadcrumbs;
  if (Array.isArray(b)) return b;
  if (isObj(b) && Array.isArray(b.values)) return b.values;
  return [];
}

/** Sentry's `entries`, in Sentry's order: exception, message, breadcrumbs, request. */
function entries(e: Obj, message: string | undefined): Array<{ type: string; data: unknown }> {
  const out: Array<{ type: string; data: unknown }> = [];
  const exc = e.exception;
  if (isObj(exc) && Array.isArray(exc.values) && exc.values.length > 0) {
    const hasSystemFrames = (exc.values as unknown[]).some(
      (v) =>
        isObj(v) &&
        isObj(v.stacktrace) &&
        Array.isArray(v.stacktrace.frames) &&
        v.stacktrace.frames.some((f) => isObj(f) && f.in_app === false),
    );
    out.push({ type: "exception", data: { values: exc.values.map(sentryException), excOmitted: null, hasSystemFrames } });
  }
  if (message !== undefined && !(isObj(exc) && Array.isArray(exc.values) && exc.values.length > 0)) {
    const logentry = isObj(e.logentry) ? e.logentry : {};
    out.push({ type: "message", data: { formatted: message, message: logentry.message ?? null, params: logentry.params ?? null } });
  }
  const crumbs = breadcrumbValues(e);
  if (crumbs.length > 0) out.push({ type: "breadcrumbs", data: { values: crumbs.map(sentryBreadcrumb) } });
  if (isObj(e.request)) out.push({ type: "request", data: e.request });
  return out;
}

/** The event time as ISO text; the receive time when the stored value is no usable date (never throws). */
function isoOf(v: unknown, fallback: number): string {
  const d = new Date(typeof v === "number" ? v * 1000 : Number.NaN);
  return Number.isNaN(d.getTime()) ? new Date(fallback).toISOString() : d.toISOString();
}

export function sentryEventShape(ev: EventDetail) {
  const e = ev.event;
  const normalized = e as unknown as NormalizedEvent;
  const described = describeEvent(normalized);
  const message = messageText(normalized);
  return {
    ...e,
    id: ev.eventId,
    eventID: ev.eventId,
    groupID: String(ev.issueId),
    projectID: String(ev.projectId),
    projectSlug: ev.projectSlug,
    title: described.title,
    message: message ?? "",
    type: described.type,
    culprit: described.culprit,
    location: described.culprit || null,
    metadata: described.metadata,
    platform: typeof e.platform === "string" ? e.platform : "other",
    dateCreated: isoOf(e.timestamp, ev.receivedAt),
    dateReceived: new Date(ev.receivedAt).toISOString(),
    release: typeof e.release === "string" && e.release !== "" ? { version: e.release, shortVersion: e.release } : null,
    dist: typeof e.dist === "string" ? e.dist : null,
    size: ev.size ?? null,
    // Filled by the event endpoints (event-api.ts eventDetail), which read the user's report.
    userReport: null as SentryUserReport | null,
    nextEventID: null as string | null,
    previousEventID: null as string | null,
    tags: tagList(e),
    contexts: isObj(e.contexts) ? e.contexts : {},
    user: isObj(e.user) ? e.user : null,
    sdk: isObj(e.sdk) ? e.sdk : null,
    packages: isObj(e.modules) ? e.modules : {},
    fingerprints: Array.isArray(e.fingerprint) ? e.fingerprint : [],
    errors: [],
    crashFile: null,
    // Sentry's `context` is the event's `extra`.
    context: isObj(e.extra) ? e.extra : {},
    // Errata records no per-field processing remarks (Relay's `_meta`); an SDK's own are kept.
    _meta: isObj(e._meta) ? e._meta : {},
    // Issue-platform occurrences do not exist for error events; `resolvedWith` names native
    // symbol sources (Errata resolves source maps only); Errata suggests no SDK updates.
    occurrence: null,
    resolvedWith: [],
    sdkUpdates: [],
    entries: entries(e, message),
  };
}

/** Sentry's event list row (no `entries` unless `full=true`). */
export function sentryEventListItem(ev: EventDetail) {
  const full = sentryEventShape(ev);
  return {
    id: full.id,
    eventID: full.eventID,
    groupID: full.groupID,
    projectID: full.projectID,
    title: full.title,
    message: full.message,
    platform: full.platform,
    dateCreated: full.dateCreated,
    culprit: full.culprit,
    location: full.location,
    "event.type": full.type,
    tags: full.tags,
    user: full.user,
    metadata: full.metadata,
    crashFile: full.crashFile,
  };
}
