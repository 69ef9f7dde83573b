/**
 * What ingest stores besides events, read with authorization: outcome counters (SPEC §3, shown to
 * admins — a settings page can come later) and the attachments of an event (downloadable by
 * anyone who may read the event). Wired into the services by create-services.ts.
 */
import { AppError } from "../../core/errors";
import type { OutcomeName } from "../../core/outcomes";
import type { Db } from "../../storage/db";
import { getAttachment, listEventAttachments } from "../../storage/events/attachments";
import { listOutcomes } from "../../storage/events/outcomes";
import type { Access } from "../access/access";
import type { Viewer } from "../types";

export interface OutcomeStat {
  /** start of the hour, epoch ms */
  hour: number;
  keyId: number;
  category: string;
  outcome: OutcomeName;
  reason: string;
  quantity: number;
}

export interface AttachmentSummary {
  id: number;
  eventId: string;
  name: string;
  contentType: string;
  attachmentType: string;
  size: number;
  sha1: string;
  createdAt: number;
}

export interface AttachmentDownload extends AttachmentSummary {
  data: Buffer;
}

export interface IngestDataServices {
  outcomes: {
    /** Counters of one project with `from <= hour < to` (epoch ms), oldest first. Admins and owners only. */
    list(viewer: Viewer, orgSlug: string, projectSlug: string, range: { from: number; to: number }): Promise<OutcomeStat[]>;
  };
  attachments: {
    list(viewer: Viewer, orgSlug: string, projectSlug: string, eventId: string): Promise<AttachmentSummary[]>;
    /** One attachment with its bytes; not_found unless it belongs to that event of that project of the org. */
    download(viewer: Viewer, orgSlug: string, projectSlug: string, eventId: string, attachmentId: number): Promise<AttachmentDownload>;
  };
}

/** At most this many days of hourly counters per call. */
const MAX_RANGE_MS = 92 * 24 * 3_600_000;

export function createIngestDataServices(deps: { db: Db; projectOrThrow: Access["projectOrThrow"] }): IngestDataServices {
  const { db, projectOrThrow } = deps;

  function eventIdOrThrow(eventId: string): string {
    const id = eventId.replace(/-/g, "").toLowerCase();
    if (!/^[0-9a-f]{32}$/.test(id)) throw new AppError("not_found", "Event not found.");
    return id;
  }

  const toSummary = (a: Awaited<ReturnType<typeof listEventAttachments>>[number]): AttachmentSummary => ({
    id: a.id,
    eventId: a.eventId,
    name: a.name,
    contentType: a.contentType,
    attachmentType: a.attachmentType,
    size: a.size,
    sha1: a.checksum,
    createdAt: a.createdAt,
  });

  return {
    outcomes: {
      async list(viewer, orgSlug, projectSlug, range) {
        const { project: p } = await projectOrThrow(viewer, orgSlug, projectSlug, "stats.outcomes");
        const from = Math.floor(range.from);
        const to = Math.floor(range.to);
        if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || to < from || to - from > MAX_RANGE_MS) {
          throw new AppError("validation_failed", "Invalid time range.", {
            fields: [{ field: "range", rule: "range", message: "from ≤ to, at most 92 days apart (epoch ms)" }],
          });
        }
        const rows = await listOutcomes(db, { projectIds: [p.id], from, to });
        return rows.map((r) => ({
          hour: r.hour,
          keyId: r.keyId,
          category: r.category,
          outcome: r.outcome,
          reason: r.reason,
          quantity: r.quantity,
        }));
      },
    },
    attachments: {
      async list(viewer, orgSlug, projectSlug, eventId) {
        const { project: p } = await projectOrThrow(viewer, orgSlug, projectSlug, "event.read");
        return (await listEventAttachments(db, p.id, eventIdOrThrow(eventId))).map(toSummary);
      },
      async download(viewer, orgSlug, projectSlug, eventId, attachmentId) {
        const { project: p } = await projectOrThrow(viewer, orgSlug, projectSlug, "event.read");
        const file = Number.isSafeInteger(attachmentId) ? await getAttachment(db, p.id, eventIdOrThrow(eventId), attachmentId) : undefined;
        if (!file) throw new AppError("not_found", "Attachment not found.");
        return { ...toSummary(file), data: file.data };
      },
    },
  };
}

/** Sentry's EventAttachment serializer shape (for tools written against Sentry's API). */
export function sentryAttachment(a: AttachmentSummary) {
  return {
    id: String(a.id),
    event_id: a.eventId,
    type: a.attachmentType,
    name: a.name,
    mimetype: a.contentType,
    size: a.size,
    sha1: a.sha1,
    dateCreated: new Date(a.createdAt).toISOString(),
    headers: { "Content-Type": a.contentType },
  };
}

/** Types a browser may render inline without running anything; everything else downloads as bytes. */
const INLINE_SAFE = new Set(["text/plain", "application/json", "image/png", "image/jpeg", "image/gif", "image/webp"]);

/**
 * Headers for serving attachment bytes: SDK-supplied names and types are untrusted, so the file is
 * always a download, never sniffed, and sandboxed if a browser renders it anyway.
 */
export function attachmentDownloadHeaders(a: AttachmentSummary): Record<string, string> {
  const type = a.contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  const ascii = a.name.replace(/[^\x20-\x7e]|["\\]/g, "_").slice(0, 200) || "attachment";
  return {
    "Content-Type": INLINE_SAFE.has(type) ? type : "application/octet-stream",
    "Content-Length": String(a.size),
    "Content-Disposition": `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(a.name.slice(0, 200))}`,
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "sandbox; default-src 'none'",
    "Cache-Control": "private, no-store",
  };
}
