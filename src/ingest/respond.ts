/**
 * Answers of the ingest endpoints: `{"id": …}` / `{}` on success, the catalogue's
 * `{"detail", "code"}` with `X-Sentry-Error` on failure, CORS headers on every one of them
 * (reference §2.4, §5), and `Retry-After` + `X-Sentry-Rate-Limits` on 429.
 */
import type { ServerResponse } from "node:http";
import { ERROR_CATALOGUE, type ErrorCode } from "../core/errors";
import { CORS_HEADERS } from "./compat/cors";
import { formatRateLimits, type RateLimitVerdict } from "./rate-limit";

const JSON_TYPE = "application/json";
const EMPTY_OK = "{}";

/** CORS pairs as a flat list, built once: writeHead takes raw [name, value, …] arrays cheaply. */
const CORS_PAIRS: string[] = Object.entries(CORS_HEADERS).flat();

export function sendOk(res: ServerResponse, eventId: string | undefined, status = 200, extra: readonly string[] = []): void {
  // eventId is validated 32-hex, so plain concatenation is valid JSON.
  const body = eventId === undefined ? EMPTY_OK : `{"id":"${eventId}"}`;
  res.writeHead(status, [...CORS_PAIRS, "Content-Type", JSON_TYPE, "Content-Length", String(body.length), ...extra]);
  res.end(body);
}

/** 202 with no body (Sentry's answer to a check-in), with the CORS headers of every ingest answer. */
export function sendAccepted(res: ServerResponse): void {
  res.writeHead(202, [...CORS_PAIRS, "Content-Length", "0"]);
  res.end();
}

export interface ErrorExtras {
  close?: boolean;
  requestId?: string;
  rateLimit?: RateLimitVerdict;
  /** Retry-After (s) without rate-limit headers (storage unavailable) */
  retryAfter?: number;
  /** more fields for the JSON body (e.g. per-field errors of the crash-report form) */
  body?: Record<string, unknown>;
}

export function sendError(res: ServerResponse, code: ErrorCode, message: string, extras: ErrorExtras = {}): void {
  const payload: Record<string, unknown> = { detail: message, code, ...extras.body };
  if (extras.requestId !== undefined) payload.request_id = extras.requestId;
  const body = JSON.stringify(payload);
  const headers: string[] = [
    ...CORS_PAIRS,
    "Content-Type",
    JSON_TYPE,
    "Content-Length",
    String(Buffer.byteLength(body)),
    "X-Sentry-Error",
    headerSafe(message),
  ];
  if (extras.rateLimit)
    headers.push("Retry-After", String(extras.rateLimit.retryAfter), "X-Sentry-Rate-Limits", formatRateLimits(extras.rateLimit));
  else if (extras.retryAfter !== undefined) headers.push("Retry-After", String(extras.retryAfter));
  if (extras.close) headers.push("Connection", "close");
  res.writeHead(ERROR_CATALOGUE[code].status, headers);
  res.end(body);
}

/** Any other body (the crash-report dialog's script and page), with the CORS headers. */
export function sendBody(res: ServerResponse, status: number, contentType: string, body: string, extra: string[] = []): void {
  res.writeHead(status, [...CORS_PAIRS, "Content-Type", contentType, "Content-Length", String(Buffer.byteLength(body)), ...extra]);
  res.end(body);
}

/** Messages may quote client input (item types); headers only take visible ASCII. */
export function headerSafe(message: string): string {
  return message.replace(/[^\x20-\x7e]/g, "?").slice(0, 300);
}
