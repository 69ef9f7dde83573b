/**
 * `errata send-test-event --nextjs`: the two events a Next.js app sends for one server error, so
 * the digest features (linked events, the digest page, a pasted digest, the paired alert) can be
 * seen before the first real crash. The server half is what `onRequestError` →
 * `captureRequestError` reports with the README's digest hook; the browser half is what
 * `app/error.tsx` reports: Next's redacted stand-in (React #441 in production) with the same digest.
 */
import { randomInt, randomUUID } from "node:crypto";

const SDK = { name: "sentry.javascript.nextjs", version: "11.0.0" };

export interface NextjsTestPair {
  digest: string;
  server: Record<string, unknown>;
  browser: Record<string, unknown>;
}

/** A digest as Next makes them: a 32-bit hash, printed in decimal (here random, 9–10 digits). */
function newDigest(): string {
  return String(randomInt(100_000_000, 4_294_967_295));
}

export function nextjsTestPair(message: string, now = Date.now()): NextjsTestPair {
  const digest = newDigest();
  const base = { timestamp: now / 1000, level: "error", environment: "test", sdk: SDK, logger: "errata.cli" };
  const server = {
    ...base,
    event_id: randomUUID().replace(/-/g, ""),
    platform: "node",
    tags: { digest, source: "send-test-event" },
    contexts: {
      runtime: { name: "node", version: process.version },
      nextjs: { router_kind: "App Router", router_path: "/errata-test", route_type: "render" },
    },
    transaction: "GET /errata-test",
    exception: {
      values: [
        {
          type: "Error",
          value: message,
          mechanism: { type: "auto.function.nextjs.on_request_error", handled: false },
          stacktrace: {
            frames: [
              { function: "renderToReadableStream", filename: "node_modules/next/dist/server/app-render.js", lineno: 1, in_app: false },
              { function: "ErrataTestPage", filename: "app/errata-test/page.tsx", lineno: 4, colno: 9, in_app: true },
            ],
          },
        },
      ],
    },
  };
  const browser = {
    ...base,
    event_id: randomUUID().replace(/-/g, ""),
    platform: "javascript",
    tags: { digest, source: "send-test-event" },
    request: { url: "https://app.example/errata-test" },
    exception: {
      values: [
        {
          type: "Error",
          value:
            "An error occurred in the Server Components render. The specific message is omitted in production builds to avoid leaking sensitive details. A digest property is included on this error instance which may provide additional details about the nature of the error.",
          mechanism: { type: "generic", handled: true },
          stacktrace: {
            frames: [{ function: "ErrorBoundary", filename: "app:///_next/static/chunks/app/error.js", lineno: 1, in_app: true }],
          },
        },
      ],
    },
  };
  return { digest, server, browser };
}
