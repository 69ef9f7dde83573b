/**
 * DSN authentication carriers (reference §1.3, Relay semantics), in one place:
 *   1. `X-Sentry-Auth: Sentry sentry_key=…, sentry_version=7, …`
 *   2. `Authorization: Sentry …` (same grammar; `Bearer …` is API auth, not ingest auth)
 *   3. query string `?sentry_key=…` (what the JS SDKs send, to avoid CORS preflights)
 *   4. envelope header `"dsn"` (tunnels) — only known after the body is read.
 * Relay rejects several request-level carriers; we accept them when they agree (no official SDK
 * sends two) and reject disagreement as a header mismatch.
 */

import { parseDsn } from "../../core/dsn";
import { AppError } from "../../core/errors";

/** Upper bound on a key we are willing to look up; real keys are 32 hex chars. */
const MAX_KEY_LENGTH = 128;

/** Value of a `Sentry k=v, k=v` auth header's `sentry_key`, or undefined when it is not Sentry auth. */
export function keyFromAuthHeader(value: string | undefined): string | undefined {
  if (value === undefined || value.length < 7) return undefined;
  // Case-insensitive "Sentry " prefix without allocating a lowercased copy of the whole header.
  if (value.slice(0, 7).toLowerCase() !== "sentry ") return undefined;
  for (const piece of value.slice(7).split(",")) {
    const eq = piece.indexOf("=");
    if (eq === -1) continue;
    if (piece.slice(0, eq).trim() !== "sentry_key") continue;
    const key = piece.slice(eq + 1).trim();
    if (key.length === 0) throw new AppError("missing_auth", "The X-Sentry-Auth header has an empty sentry_key.");
    return checkKeyShape(key);
  }
  throw new AppError("missing_auth", "The Sentry auth header has no sentry_key.");
}

/** `sentry_key` from a raw query string (without "?"), or undefined when absent. */
export function keyFromQuery(query: string): string | undefined {
  // Cheap pre-check: most requests carry it, but unrelated query strings must not be parsed.
  if (query.length === 0 || !query.includes("sentry_key=")) return undefined;
  const key = new URLSearchParams(query).get("sentry_key");
  if (key === null) return undefined;
  if (key.length === 0) throw new AppError("missing_auth", "The sentry_key query parameter is empty.");
  return checkKeyShape(key);
}

/**
 * The public key named by the request-level carriers (headers, query), or undefined when none is
 * present. Carriers that disagree → 403 invalid_dsn ("header mismatch").
 */
export function requestKey(xSentryAuth: string | undefined, authorization: string | undefined, query: string): string | undefined {
  let key = keyFromAuthHeader(xSentryAuth);
  key = agree(key, keyFromAuthHeader(authorization));
  return agree(key, keyFromQuery(query));
}

/** What a parsed envelope-header `dsn` contributes to authentication. */
export interface EnvelopeDsnAuth {
  publicKey: string;
  projectId: number;
}

/**
 * Reconciles the envelope header `dsn` with the request-level key and the path's project id.
 * Returns the key to authenticate with. Throws 401 when there is no carrier at all, 403 when the
 * dsn is unusable or disagrees with the request or the path.
 */
export function resolveEnvelopeAuth(reqKey: string | undefined, dsnHeader: unknown, pathProjectId: number): string {
  if (dsnHeader === undefined || dsnHeader === null) {
    if (reqKey === undefined) throw new AppError("missing_auth");
    return reqKey;
  }
  const dsn = typeof dsnHeader === "string" ? parseDsn(dsnHeader) : null;
  if (!dsn) throw new AppError("invalid_dsn", "The envelope header dsn is not a valid DSN.");
  if (Number(dsn.projectId) !== pathProjectId) {
    throw new AppError("invalid_dsn", "The envelope header dsn names another project (header mismatch).");
  }
  if (reqKey !== undefined && reqKey !== dsn.publicKey) {
    throw new AppError("invalid_dsn", "The envelope header dsn and the request auth disagree (header mismatch).");
  }
  return checkKeyShape(dsn.publicKey);
}

function agree(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b !== undefined && a !== b) throw new AppError("invalid_dsn", "The request carries different DSN keys (header mismatch).");
  return a;
}

function checkKeyShape(key: string): string {
  // Garbage keys are rejected before they can cost a database lookup or a cache slot.
  if (key.length > MAX_KEY_LENGTH) throw new AppError("invalid_dsn", "The DSN key is malformed.");
  return key;
}
