/**
 * Replay segments for the replay bench, shaped as the Browser SDK sends them (a `replay_event` and a
 * `replay_recording`: `{"segment_id":N}` + zlib of the rrweb events), sized by what they weigh on
 * the wire: ~1 MB per minute of session is one ~83 KB segment every 5 s. The events are DOM
 * mutations with masked text (as the SDK masks it), mouse moves, clicks and network spans, built
 * from a vocabulary with some random tokens, so they deflate about as real recordings do (~7:1; the
 * SDK's own small capture in the corpus is 4.9:1, longer ones repeat more). Segment 0 opens with a
 * Meta event and a full snapshot. The compressed bodies are built once and reused per session: a
 * generator process then does no per-request work beyond a few small JSON headers.
 */
import zlib from "node:zlib";

const WORDS = [
  "checkout",
  "cart",
  "price",
  "total",
  "item",
  "button",
  "menu",
  "panel",
  "row",
  "cell",
  "label",
  "title",
  "nav",
  "list",
  "card",
];

function rand(seed: number): () => number {
  let x = seed || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

function masked(r: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push("*".repeat(3 + Math.floor(r() * 8)));
  return out.join(" ");
}

/**
 * rrweb events of one segment whose zlib size is about `targetBytes`; `withSecrets` adds a captured
 * request with an Authorization header and a password, which the project's scrubbing removes (the
 * digest's full path: parse, scrub, compress again), as some real segments carry.
 */
export function segmentEvents(segmentId: number, start: number, targetBytes: number, seed = 1, withSecrets = false): unknown[] {
  const r = rand(seed * 7919 + segmentId);
  const events: unknown[] = [];
  let id = 1000 + segmentId * 100_000;
  if (segmentId === 0) {
    events.push({ type: 4, timestamp: start, data: { href: "https://shop.example/checkout", width: 1280, height: 720 } });
    events.push({
      type: 2,
      timestamp: start + 1,
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
              childNodes: [{ type: 2, id: 3, tagName: "body", attributes: {}, childNodes: [] }],
            },
          ],
        },
        initialOffset: { left: 0, top: 0 },
      },
    });
  }
  let t = start + 10;
  let compressedGuess = 0;
  if (withSecrets)
    events.push({
      type: 5,
      timestamp: (t + 5) / 1000,
      data: {
        tag: "performanceSpan",
        payload: {
          op: "resource.fetch",
          description: "https://shop.example/api/login",
          startTimestamp: (t + 5) / 1000,
          endTimestamp: (t + 50) / 1000,
          data: {
            method: "POST",
            statusCode: 200,
            request: { headers: { authorization: "Bearer eyJhbGciOi.secret" }, body: { password: "hunter2" } },
          },
        },
      },
    });
  while (compressedGuess < targetBytes) {
    const batch: unknown[] = [];
    for (let i = 0; i < 50; i++) {
      t += 1 + Math.floor(r() * 80);
      const kind = r();
      if (kind < 0.55) {
        const word = WORDS[Math.floor(r() * WORDS.length)] as string;
        batch.push({
          type: 3,
          timestamp: t,
          data: {
            source: 0,
            texts: [],
            attributes: [
              { id: id - 5, attributes: { class: `${word}-${Math.floor(r() * 40)}`, "data-k": Math.floor(r() * 0xffffff).toString(16) } },
            ],
            removes: [],
            adds: [
              {
                parentId: 3,
                nextId: null,
                node: {
                  type: 2,
                  id: id++,
                  tagName: "div",
                  attributes: { class: `${word} ${word}-${Math.floor(r() * 9)}` },
                  childNodes: [],
                },
              },
              { parentId: id - 1, nextId: null, node: { type: 3, id: id++, textContent: masked(r, 3 + Math.floor(r() * 8)) } },
            ],
          },
        });
      } else if (kind < 0.9) {
        batch.push({
          type: 3,
          timestamp: t,
          data: {
            source: 1,
            positions: [{ x: Math.floor(r() * 1280), y: Math.floor(r() * 720), id: 3, timeOffset: -Math.floor(r() * 50) }],
          },
        });
      } else if (kind < 0.96) {
        batch.push({
          type: 5,
          timestamp: t,
          data: {
            tag: "breadcrumb",
            payload: {
              timestamp: t / 1000,
              type: "default",
              category: "ui.click",
              message: `body > div.${WORDS[Math.floor(r() * WORDS.length)]}`,
            },
          },
        });
      } else {
        batch.push({
          type: 5,
          timestamp: t / 1000,
          data: {
            tag: "performanceSpan",
            payload: {
              op: "resource.fetch",
              description: `https://shop.example/api/${WORDS[Math.floor(r() * WORDS.length)]}`,
              startTimestamp: t / 1000,
              endTimestamp: (t + 40) / 1000,
              data: { method: "GET", statusCode: 200 },
            },
          },
        });
      }
    }
    events.push(...batch);
    // Measured now and then (the bodies are built once): the deflated size so far.
    if (events.length % 1000 < 50) compressedGuess = zlib.deflateSync(JSON.stringify(events)).length;
    else compressedGuess += JSON.stringify(batch).length / 7;
  }
  return events;
}

export interface SegmentBody {
  /** `{"segment_id":N}\n` + zlib: the replay_recording payload */
  recording: Buffer;
  inflated: number;
}

export function segmentBody(segmentId: number, start: number, targetBytes: number, seed = 1, withSecrets = false): SegmentBody {
  const json = Buffer.from(JSON.stringify(segmentEvents(segmentId, start, targetBytes, seed, withSecrets)));
  return { recording: Buffer.concat([Buffer.from(`{"segment_id":${segmentId}}\n`), zlib.deflateSync(json)]), inflated: json.length };
}

/** The whole envelope of one segment (the SDK always sends replay_event and replay_recording together). */
export function segmentEnvelope(replayId: string, segmentId: number, start: number, end: number, recording: Buffer): Buffer {
  const event = {
    type: "replay_event",
    replay_start_timestamp: start / 1000,
    timestamp: end / 1000,
    error_ids: [],
    trace_ids: [],
    urls: segmentId === 0 ? ["https://shop.example/checkout"] : [],
    replay_id: replayId,
    segment_id: segmentId,
    replay_type: "session",
    request: {
      url: "https://shop.example/checkout",
      headers: { "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0.0.0 Safari/537.36" },
    },
    event_id: replayId,
    environment: "production",
    release: "shop@1.0.0",
    sdk: { name: "sentry.javascript.browser", version: "11.12.0" },
    platform: "javascript",
  };
  return Buffer.concat([
    Buffer.from(
      `{"event_id":"${replayId}"}\n{"type":"replay_event"}\n${JSON.stringify(event)}\n{"type":"replay_recording","length":${recording.length}}\n`,
    ),
    recording,
  ]);
}
