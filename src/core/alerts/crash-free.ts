/**
 * The crash-free trigger, pure: whether a release's session totals (the digest's own hourly
 * counters, summed) are below a rule's threshold, and one step of the (rule, release) latch that
 * sends ONE message per drop and re-arms only once the release recovers. Time is an argument.
 */
import { crashFreeRate } from "../sessions";
import { throttleAllows } from "./match-rule";
import type { CrashFreeTrigger, RuleReleaseState } from "./types";

/** A release's sessions as the release page counts them (every class; crashed among them). */
export interface ReleaseSessionTotals {
  total: number;
  crashed: number;
}

export type CrashFreeVerdict = "too_few" | "below" | "healthy";

/**
 * Where the release stands against the trigger. "too_few" below `minSessions` (a release with 3
 * sessions and 1 crash says nothing yet). The comparison is exact: integer arithmetic in
 * hundredths of a percent (the threshold is kept to hundredths), so 95 % of 1000 sessions is 950
 * crash-free sessions, not 949.9999.
 */
export function crashFreeVerdict(t: ReleaseSessionTotals, trig: CrashFreeTrigger): CrashFreeVerdict {
  if (t.total <= 0 || t.total < trig.minSessions) return "too_few";
  const crashFree = t.total - Math.min(Math.max(0, t.crashed), t.total);
  return crashFree * 10_000 < Math.round(trig.belowPercent * 100) * t.total ? "below" : "healthy";
}

/** The rate a message reports (0–1), the same definition as the release page. */
export function crashFreeOf(t: ReleaseSessionTotals): number {
  return crashFreeRate(t) ?? 1;
}

/**
 * One evaluation of the (rule, release) latch after the release's counters changed:
 * - below the threshold and not yet sent for this drop → fire (unless the rule's throttle sent
 *   for this release too recently: then it stays armed and fires at a later evaluation);
 * - below and already sent → nothing, however many more sessions crash;
 * - at or above the threshold again → re-armed (the next drop sends again);
 * - fewer sessions than `minSessions` → nothing changes.
 * The caller writes the state only when `changed`.
 */
export function crashFreeStep(
  state: RuleReleaseState | undefined,
  totals: ReleaseSessionTotals,
  trig: CrashFreeTrigger,
  throttleMinutes: number,
  now: number,
): { state: RuleReleaseState; fired: boolean; changed: boolean } {
  const s: RuleReleaseState = state ? { ...state } : { below: false, lastNotifiedAt: null };
  const verdict = crashFreeVerdict(totals, trig);
  if (verdict === "too_few") return { state: s, fired: false, changed: false };
  if (verdict === "healthy") {
    if (!s.below) return { state: s, fired: false, changed: false };
    return { state: { ...s, below: false }, fired: false, changed: true };
  }
  if (s.below || !throttleAllows(s.lastNotifiedAt, throttleMinutes, now)) return { state: s, fired: false, changed: false };
  return { state: { below: true, lastNotifiedAt: now }, fired: true, changed: true };
}
