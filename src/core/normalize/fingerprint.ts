/** Fingerprint: a string or a list, as a list of strings. */

import type { NormalizedEvent } from "../event";
import { str } from "./coerce";
import type { Notes } from "./notes";

export function normalizeFingerprint(event: NormalizedEvent, notes: Notes): void {
  const raw: unknown = event.fingerprint;
  if (raw === undefined) return;
  if (typeof raw === "string") {
    event.fingerprint = [raw];
    return;
  }
  if (!Array.isArray(raw)) {
    if (raw !== null) notes.add("dropped", "fingerprint", "`fingerprint` is not a list.");
    delete event.fingerprint;
    return;
  }
  // Sentry stringifies numbers (custom-fingerprint-int) and drops nulls.
  event.fingerprint = raw.filter((v) => v !== null && v !== undefined).map((v) => str(v));
}
