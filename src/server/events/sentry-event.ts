/**
 * Sentry's event serializer shape (what `GET …/events/{id}/`, `…/issues/{id}/events/latest/` and
 * the event lists answer): `title`, `message`, `entries` (exception, message, breadcrumbs, request),
 * tags as a key/value list, contexts, platform, dates as ISO strings. The stored payload's own
 * interface keys stay alongside for tools that read them directly (`exception`, `request`…).
 */

import type { NormalizedEvent } from "../../core/event";
import { describeEvent, messageText } from "../../core/grouping/describe";
import type { EventDetail } from "../types";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function tagList(e: Obj): Array<{ key: string; value: string }> {
  if (!Array.isArray(e.tags)) return [];
  return (e.tags as unknown[]).flatMap((t) =>
    Array.isArray(t) && typeof t[0] === "string" && t[1] !== undefined && t[1] !== null ? [{ key: t[0], value: String(t[1]) }] : [],
  );
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
    out.push({ type: "exception", data: { values: exc.values, excOmitted: null, hasSystemFrames } });
  }
  if (message !== undefined && !(isObj(exc) && Array.isArray(exc.values) && exc.values.length > 0)) {
    const logentry = isObj(e.logentry) ? e.logentry : {};
    out.push({ type: "message", data: { formatted: message, message: logentry.message ?? null, params: logentry.params ?? null } });
  }
  const crumbs = breadcrumbValues(e);
  if (crumbs.length > 0) out.push({ type: "breadcrumbs", data: { values: crumbs } });
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
    tags: tagList(e),
    contexts: isObj(e.contexts) ? e.contexts : {},
    user: isObj(e.user) ? e.user : null,
    sdk: isObj(e.sdk) ? e.sdk : null,
    packages: isObj(e.modules) ? e.modules : {},
    fingerprints: Array.isArray(e.fingerprint) ? e.fingerprint : [],
    errors: [],
    crashFile: null,
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
  };
}
