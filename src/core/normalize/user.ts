/** User: string fields, the `data` bag and IP inference. */

import { BAG_LIMITS, CHAR_LIMITS, type EventUser, type NormalizeContext, type NormalizedEvent } from "../event";
import { isObj, str } from "./coerce";
import { AUTO_IP, inferIpSetting } from "./infer-ip";
import type { Notes } from "./notes";
import { trimBag, trimString } from "./trim";

/**
 * IP inference (reference §4.4): `{{auto}}` and `sdk.settings.infer_ip: "auto"` take the client
 * address; `infer_ip: "never"` forbids any inference, including the `REMOTE_ADDR` backfill.
 */
export function normalizeUser(event: NormalizedEvent, ctx: NormalizeContext, notes: Notes): void {
  const raw: unknown = event.user;
  let user: EventUser | undefined;
  if (isObj(raw)) user = { ...raw };
  else if (raw !== undefined && raw !== null) notes.add("dropped", "user", "`user` is not an object.");
  const inferIp = inferIpSetting(event);

  if (user) {
    for (const key of ["id", "email", "username", "name", "ip_address"] as const) {
      const v = user[key];
      if (v === undefined) continue;
      if (v === null || v === "") delete user[key];
      else if (typeof v !== "string") user[key] = str(v);
    }
    if (user.id !== undefined) user.id = trimString(user.id, CHAR_LIMITS.enumLike, "user.id", notes);
    if (user.username !== undefined) user.username = trimString(user.username, CHAR_LIMITS.enumLike, "user.username", notes);
    if (user.email !== undefined) user.email = trimString(user.email, CHAR_LIMITS.email, "user.email", notes);
    if (user.data !== undefined) {
      const data = trimBag(user.data, BAG_LIMITS.userData, "user.data", notes);
      if (data === undefined) delete user.data;
      else user.data = data;
    }
    if (user.ip_address === AUTO_IP) {
      if (inferIp === "never") {
        delete user.ip_address;
        notes.add("dropped", "user.ip_address", '`{{auto}}` was not resolved: the SDK says infer_ip "never".');
      } else if (ctx.clientIp) {
        user.ip_address = ctx.clientIp;
        notes.add("inferred", "user.ip_address", "`{{auto}}` was replaced by the client's address.");
      } else {
        delete user.ip_address;
        notes.add("dropped", "user.ip_address", "`{{auto}}` could not be resolved: no client IP.");
      }
    }
  }
  // Newer browser SDKs ask for inference with sdk.settings.infer_ip instead of `{{auto}}`.
  if (inferIp === "auto" && ctx.clientIp && !user?.ip_address) {
    user = { ...(user ?? {}), ip_address: ctx.clientIp };
    notes.add("inferred", "user.ip_address", 'Set from the client\'s address (sdk.settings.infer_ip "auto").');
  }
  // Server SDKs put the end user's address in request.env.REMOTE_ADDR (Sentry backfills from it).
  const env = isObj(event.request) && isObj(event.request.env) ? event.request.env : undefined;
  if (inferIp !== "never" && user && !user.ip_address && typeof env?.REMOTE_ADDR === "string" && env.REMOTE_ADDR) {
    user.ip_address = env.REMOTE_ADDR;
    notes.add("inferred", "user.ip_address", "Set from request.env.REMOTE_ADDR.");
  }
  if (user && Object.keys(user).length > 0) event.user = user;
  else delete event.user;
}
