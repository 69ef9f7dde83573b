/**
 * Replay envelopes shaped as the Browser SDK sends them (reference §3.4): a `replay_event` and a
 * `replay_recording` whose body is `{"segment_id":N}\n` + zlib (or plain) rrweb JSON. The rrweb
 * events here are synthetic but follow the SDK's shapes (Meta, FullSnapshot, incremental, custom
 * `breadcrumb` and `performanceSpan` events); the real SDK's own recordings are exercised in the
 * browser tests and the corpus capture.
 */
import { createHash } from "node:crypto";
import zlib from "node:zlib";

export const replayIdOf = (s: string) => createHash("md5").update(s).digest("hex");

export interface SegmentOptions {
  segmentId: number;
  /** epoch ms of the segment's first event */
  start: number;
  url?: string;
  /** extra rrweb events */
  extra?: unknown[];
  /** pad the segment with incremental events up to about this many JSON bytes */
  padTo?: number;
}

/** A segment's rrweb events: Meta + full snapshot (segment 0) or incremental events, breadcrumbs. */
export function segmentEvents(o: SegmentOptions): unknown[] {
  const url = o.url ?? "https://shop.example/checkout";
  const events: unknown[] = [];
  if (o.segmentId === 0) {
    events.push({ type: 4, data: { href: url, width: 1280, height: 720 }, timestamp: o.start });
    events.push({
      type: 2,
      timestamp: o.start + 1,
      data: {
        node: {
          type: 0,
          id: 1,
          childNodes: [
            {
              type: 2,
              id: 2,
              tagName: "html",
              attributes: {},
              childNodes: [
                {
                  type: 2,
                  id: 3,
                  tagName: "body",
                  attributes: {},
                  childNodes: [
                    {
                      type: 2,
                      id: 4,
                      tagName: "h1",
                      attributes: { id: "title" },
                      childNodes: [{ type: 3, id: 5, textContent: "******** ****" }],
                    },
                    { type: 2, id: 6, tagName: "button", attributes: { id: "pay" }, childNodes: [{ type: 3, id: 7, textContent: "***" }] },
                  ],
                },
              ],
            },
          ],
        },
        initialOffset: { left: 0, top: 0 },
      },
    });
  }
  events.push({
    type: 5,
    timestamp: o.start + 100,
    data: {
      tag: "breadcrumb",
      payload: {
        timestamp: (o.start + 100) / 1000,
        type: "default",
        category: "ui.click",
        message: "body > button#pay",
        data: { nodeId: 6, node: { id: 6, tagName: "button", textContent: "***", attributes: { id: "pay" } } },
      },
    },
  });
  events.push({
    type: 5,
    timestamp: o.start + 200,
    data: {
      tag: "performanceSpan",
      payload: {
        op: "resource.fetch",
        description: `${url}/api?token=s3cr3t-value`,
        startTimestamp: (o.start + 200) / 1000,
        endTimestamp: (o.start + 260) / 1000,
        data: {
          method: "POST",
          statusCode: 200,
          request: {
            size: 20,
            headers: { authorization: "Bearer abc.def.ghi", "content-type": "application/json" },
            body: { password: "hunter2", item: "book" },
          },
          response: { size: 2, headers: {}, body: { ok: true } },
        },
      },
    },
  });
  events.push(...(o.extra ?? []));
  if (o.padTo) {
    let i = 0;
    let size = JSON.stringify(events).length;
    while (size < o.padTo) {
      const ev = {
        type: 3,
        timestamp: o.start + 300 + i,
        data: { source: 1, positions: [{ x: (i * 7) % 1280, y: (i * 13) % 720, id: 6, timeOffset: -i % 50 }] },
      };
      events.push(ev);
      size += JSON.stringify(ev).length + 1;
      i += 1;
    }
  }
  return events;
}

/** A scripted rage click as the SDK reports it: five clicks on a button that never reacted. */
export function rageClick(at: number): unknown {
  return {
    type: 5,
    timestamp: at,
    data: {
      tag: "breadcrumb",
      payload: {
        timestamp: at / 1000,
        type: "default",
        category: "ui.slowClickDetected",
        message: "body > button#pay",
        data: {
          node: { id: 6, tagName: "button" },
          nodeId: 6,
          endReason: "timeout",
          timeAfterClickMs: 7000,
          clickCount: 5,
          url: "https://shop.example/checkout",
        },
      },
    },
  };
}

/** `{"segment_id":N}\n` + the events, zlib-compressed (as the SDK's worker does) or plain. */
export function recordingPayload(segmentId: number, events: unknown[], compressed = true): Buffer {
  const json = Buffer.from(JSON.stringify(events));
  return Buffer.concat([Buffer.from(`${JSON.stringify({ segment_id: segmentId })}\n`), compressed ? zlib.deflateSync(json) : json]);
}

export interface ReplayEventOptions {
  replayId: string;
  segmentId: number;
  start: number;
  end: number;
  urls?: string[];
  errorIds?: string[];
  traceIds?: string[];
  replayType?: "session" | "buffer";
  user?: Record<string, unknown>;
}

export function replayEvent(o: ReplayEventOptions): Record<string, unknown> {
  return {
    type: "replay_event",
    replay_start_timestamp: o.start / 1000,
    timestamp: o.end / 1000,
    error_ids: o.errorIds ?? [],
    trace_ids: o.traceIds ?? [],
    urls: o.urls ?? [],
    replay_id: o.replayId,
    segment_id: o.segmentId,
    replay_type: o.replayType ?? "session",
    request: {
      url: o.urls?.[0] ?? "https://shop.example/checkout",
      headers: { "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36" },
    },
    event_id: o.replayId,
    environment: "production",
    release: "shop@2.0.0",
    sdk: { name: "sentry.javascript.browser", version: "11.12.0" },
    platform: "javascript",
    ...(o.user ? { user: o.user } : {}),
  };
}

/** The envelope: header, replay_event (JSON, no length, as the SDK writes it) and the recording. */
export function replayEnvelope(replayId: string, event: Record<string, unknown> | null, recording: Buffer | null): Buffer {
  const parts: Buffer[] = [
    Buffer.from(
      JSON.stringify({
        event_id: replayId,
        sent_at: new Date().toISOString(),
        sdk: { name: "sentry.javascript.browser", version: "11.12.0" },
      }),
    ),
  ];
  if (event) parts.push(Buffer.from(`\n${JSON.stringify({ type: "replay_event" })}\n${JSON.stringify(event)}`));
  if (recording) parts.push(Buffer.from(`\n${JSON.stringify({ type: "replay_recording", length: recording.length })}\n`), recording);
  return Buffer.concat(parts);
}

/** One whole SDK segment envelope. */
export function segmentEnvelope(
  replayId: string,
  segmentId: number,
  start: number,
  opts: Partial<ReplayEventOptions> & { extra?: unknown[]; padTo?: number; compressed?: boolean } = {},
): Buffer {
  const events = segmentEvents({ segmentId, start, extra: opts.extra, padTo: opts.padTo, url: opts.urls?.[0] });
  const end = start + 5000;
  return replayEnvelope(
    replayId,
    replayEvent({
      replayId,
      segmentId,
      start: opts.start ?? start,
      end,
      urls: opts.urls,
      errorIds: opts.errorIds,
      traceIds: opts.traceIds,
      replayType: opts.replayType,
      user: opts.user,
    }),
    recordingPayload(segmentId, events, opts.compressed ?? true),
  );
}

/** Posts an envelope to a DSN's envelope endpoint as the SDK does; throws unless 200. */
export async function postEnvelope(dsn: URL, body: Buffer): Promise<void> {
  const res = await fetch(`${dsn.protocol}//${dsn.host}/api/${dsn.pathname.slice(1)}/envelope/`, {
    method: "POST",
    headers: { "content-type": "application/x-sentry-envelope", "x-sentry-auth": `Sentry sentry_key=${dsn.username}, sentry_version=7` },
    body: new Uint8Array(body),
  });
  if (res.status !== 200) throw new Error(`replay envelope answered ${res.status}: ${await res.text()}`);
}

/**
 * A two-segment session replay through a DSN, naming `errorIds` (as the SDK's replay_event does);
 * the second segment carries a scripted rage click. Answers the replay id.
 */
export async function sendReplay(
  dsn: URL,
  o: { errorIds?: string[]; start?: number; user?: Record<string, unknown> } = {},
): Promise<string> {
  const replayId = crypto.randomUUID().replace(/-/g, "");
  const start = o.start ?? Date.now() - 20_000;
  const urls = ["https://shop.example/checkout"];
  await postEnvelope(dsn, segmentEnvelope(replayId, 0, start, { start, urls, user: o.user }));
  await postEnvelope(
    dsn,
    segmentEnvelope(replayId, 1, start + 5000, { start, urls, errorIds: o.errorIds, user: o.user, extra: [rageClick(start + 6000)] }),
  );
  return replayId;
}
