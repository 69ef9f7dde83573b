/**
 * Who may read /metrics (per-project volumes are not public): with METRICS_TOKEN, a request with
 * `Authorization: Bearer <token>`, compared in constant time; without one, loopback clients only.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { ErrorCode } from "../../core/errors";

const LOOPBACK = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);

/** undefined when allowed, else the catalogue code to answer with. */
export function metricsRefusal(
  token: string | undefined,
  authorization: string | undefined,
  remoteAddress: string | undefined,
): ErrorCode | undefined {
  if (token === undefined) return remoteAddress !== undefined && LOOPBACK.has(remoteAddress) ? undefined : "forbidden";
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
  if (!m?.[1]) return "unauthenticated";
  // Hashes have equal lengths, so timingSafeEqual never throws and the length is not leaked.
  const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();
  return timingSafeEqual(digest(m[1]), digest(token)) ? undefined : "unauthenticated";
}
