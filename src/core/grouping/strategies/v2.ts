/**
 * Grouping v2 — Sentry's newstyle semantics (reference §7.1–7.3), implemented for meaning rather
 * than hash equality:
 *
 *   fingerprint (custom, or hybrid with `{{ default }}`)
 *   › chained exceptions (per exception: stack trace, type unless synthetic, parameterised value
 *     only when the stack trace does not contribute)
 *   › the crashed thread's stack trace › the event's stack trace
 *   › parameterised message › fallback.
 *
 * Stack traces yield two variants: `app` (in-app frames only) and `system` (all frames). Each
 * contributing variant becomes a hash; an event joins an issue owning any of them. When one
 * variant has a contributing stack trace, variants without one are dropped (otherwise a generic
 * "type: value" hash would merge unrelated crashes again).
 *
 * The order above is shared with v3 (default-strategy.ts); this file states v2's own choices:
 * frames grouped by frames.ts, in-app as the SDK said, an exception's value counted when its own
 * stack trace does not contribute. Its hashes are stored: its output must never change.
 */
import type { Frame, NormalizedEvent } from "../../event";
import { resolveFingerprintEntry } from "../fingerprint";
import { normalizeMessageForGrouping } from "../parameterize";
import type { GroupingKey } from "../types";
import { fingerprintKey, toKey } from "./assemble-key";
import { defaultStrategy, type GroupingVersion, type StackTraceView } from "./default-strategy";
import { describeParts, groupFrame } from "./frames";

export const VERSION = "v2";

function viewStack(frames: Frame[], platform: string): StackTraceView {
  const groupings = frames.map((f, i) => groupFrame(f, platform, i > 0 ? frames[i - 1] : undefined));
  return {
    values: groupings.map((g) => (g.contributes ? g.parts.map((p) => `${p.label}=${p.value}`) : undefined)),
    described: groupings.map((g) => (g.contributes ? describeParts(g.parts) : undefined)),
    pick: (variant) => groupings.flatMap((g, i) => (g.contributes && (variant !== "app" || g.inApp) ? [i] : [])),
  };
}

const V2: GroupingVersion = { viewStack, valuesWhen: "own-stack-missing", normalizeMessage: normalizeMessageForGrouping };

export function groupingKeyV2(event: NormalizedEvent): GroupingKey {
  const fingerprint = event.fingerprint;
  if (fingerprint && fingerprint.length > 0)
    return fingerprintKey(
      event,
      fingerprint,
      (f, e) => resolveFingerprintEntry(f, e),
      () => defaultStrategy(event, V2),
    );
  return toKey(defaultStrategy(event, V2));
}
