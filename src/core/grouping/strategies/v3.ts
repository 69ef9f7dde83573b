/**
 * Grouping v3 — v2's strategy order (fingerprint › exceptions › thread › stack trace › message ›
 * fallback, app and system variants; shared in default-strategy.ts) with the behaviour of
 * Sentry's grouping for every server and browser platform family:
 *
 *   - frames cleaned per platform (frames-v3.ts) and judged by stack-trace rules: the built-in
 *     ones (rules/builtin.ts) then the project's own, which may change in-app, stop frames from
 *     grouping (`-group`, `^-group`, `v-group`) and cap them (`max-frames=`);
 *   - chained exceptions: once any exception's stack trace contributes to a variant, no
 *     exception value does (values only decide when there is no usable stack at all);
 *   - a fingerprint's `{{ message }}` is the exception's "Type: value" when there is no message;
 *   - generated quoted identifiers in messages are parameterised.
 *
 * Native frames are grouped as v2 groups them.
 */
import type { ExceptionValue, Frame, NormalizedEvent } from "../../event";
import { resolveFingerprintEntry } from "../fingerprint";
import { normalizeMessageForGroupingV3 } from "../parameterize";
import { BUILTIN_STACK_RULES } from "../rules/builtin";
import { applyStackRules, describeRule, type RuleException, type StackDecision, type StackRule } from "../rules/stack-rules";
import type { GroupingContext, GroupingKey } from "../types";
import { fingerprintKey, toKey } from "./assemble-key";
import { defaultStrategy, type GroupingVersion, type StackTraceView, type StackVariantName } from "./default-strategy";
import { describeParts, familyOf } from "./frames";
import { type FrameGroupingV3, groupFrameV3 } from "./frames-v3";

export const VERSION = "v3";

function viewStack(
  rules: StackRule[],
  frames: Frame[],
  platform: string,
  exc: ExceptionValue | undefined,
  notes: Set<string>,
): StackTraceView {
  const groupings = frames.map((f, i) => groupFrameV3(f, platform, i > 0 ? frames[i - 1] : undefined));
  const ruleFrames = frames.map((frame) => ({
    frame,
    family: familyOf(typeof frame.platform === "string" && frame.platform ? frame.platform : platform),
  }));
  const ruleExc: RuleException | undefined = exc
    ? { type: exc.type, value: exc.value, mechanism: typeof exc.mechanism?.type === "string" ? exc.mechanism.type : undefined }
    : undefined;
  const sdkInApp = frames.map((f) => f.in_app === true);
  const decision = applyStackRules(rules, ruleFrames, sdkInApp, ruleExc);
  noteRules(decision, groupings, sdkInApp, notes);
  return {
    values: groupings.map((g) => (g.contributes ? g.parts.map((p) => `${p.label}=${p.value}`) : undefined)),
    described: groupings.map((g) => (g.contributes ? `${describeParts(g.parts)}${g.hint ? ` (${g.hint})` : ""}` : undefined)),
    pick: (variant, pickNotes) => pickFrames(groupings, decision, variant, pickNotes),
  };
}

/** The frames the rules let group in `variant`, capped by `max-frames`; none below `min-frames`. */
function pickFrames(
  groupings: FrameGroupingV3[],
  decision: StackDecision,
  variant: StackVariantName,
  notes: Set<string>,
): number[] | undefined {
  let picked: number[] = [];
  for (let i = 0; i < groupings.length; i++) {
    const d = decision.frames[i];
    if (!groupings[i]?.contributes || !d?.group || (variant === "app" && !d.inApp)) continue;
    picked.push(i);
  }
  const max = decision.maxFrames;
  if (max && picked.length > max.value) {
    notes.add(`rule: ${variant}: only the ${max.value} newest frames by ${describeRule(max.rule)}`);
    picked = picked.slice(picked.length - max.value);
  }
  const min = decision.minFrames;
  if (min && picked.length < min.value) {
    notes.add(`rule: ${variant}: fewer than ${min.value} frames, stack trace ignored by ${describeRule(min.rule)}`);
    return undefined;
  }
  return picked;
}

/** Names each rule that kept a frame from grouping or changed its in-app flag. */
function noteRules(decision: StackDecision, groupings: FrameGroupingV3[], sdkInApp: boolean[], notes: Set<string>): void {
  const counts = new Map<StackRule, { group: number; app: number }>();
  const bump = (rule: StackRule, key: "group" | "app") => {
    const c = counts.get(rule) ?? { group: 0, app: 0 };
    c[key] += 1;
    counts.set(rule, c);
  };
  decision.frames.forEach((d, i) => {
    if (!d.group && d.groupRule && groupings[i]?.contributes) bump(d.groupRule, "group");
    if (d.appRule && d.inApp !== sdkInApp[i]) bump(d.appRule, "app");
  });
  for (const [rule, c] of counts) {
    const what = [
      c.group > 0 ? `${c.group} frame${c.group === 1 ? "" : "s"} not grouped` : "",
      c.app > 0 ? `in-app changed on ${c.app}` : "",
    ]
      .filter(Boolean)
      .join(", ");
    notes.add(`rule: ${what} by ${describeRule(rule)}`);
  }
}

function versionWith(rules: StackRule[]): GroupingVersion {
  return {
    viewStack: (frames, platform, exc, notes) => viewStack(rules, frames, platform, exc, notes),
    valuesWhen: "no-stack",
    normalizeMessage: normalizeMessageForGroupingV3,
  };
}

const BUILTIN_ONLY = versionWith(BUILTIN_STACK_RULES);

export function groupingKeyV3(event: NormalizedEvent, ctx: GroupingContext = {}): GroupingKey {
  const version = ctx.stackRules && ctx.stackRules.length > 0 ? versionWith([...BUILTIN_STACK_RULES, ...ctx.stackRules]) : BUILTIN_ONLY;
  const fingerprint = event.fingerprint;
  if (fingerprint && fingerprint.length > 0) {
    const resolve = (f: string, e: NormalizedEvent) => resolveFingerprintEntry(f, e, { messageFromException: true });
    return fingerprintKey(event, fingerprint, resolve, () => defaultStrategy(event, version));
  }
  return toKey(defaultStrategy(event, version));
}
