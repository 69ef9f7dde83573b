/**
 * Grouping v3 — v2's strategy order (fingerprint › exceptions › thread › stack trace › message ›
 * fallback, app and system variants) with the behaviour of Sentry's grouping for every server and
 * browser platform family:
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
import type { ExceptionValue, NormalizedEvent, Stacktrace, Thread } from "../../event";
import { resolveFingerprintEntry } from "../fingerprint";
import { normalizeMessageForGroupingV3 } from "../parameterize";
import { BUILTIN_STACK_RULES } from "../rules/builtin";
import { applyStackRules, describeRule, type RuleException, type StackDecision, type StackRule } from "../rules/stack-rules";
import type { GroupingContext, GroupingKey } from "../types";
import { dropVariantsWithoutStacktrace, fingerprintKey, type Strategy, toKey, type Variant } from "./assemble-key";
import { describeParts, familyOf } from "./frames";
import { type FrameGroupingV3, groupFrameV3 } from "./frames-v3";

export const VERSION = "v3";

type VariantName = "app" | "system";
const STACK_VARIANTS: VariantName[] = ["app", "system"];
const MAX_FRAME_LINES = 40;
const URL_PATH = /^(?:https?|applewebdata|blob|file):/i;

// ---------------------------------------------------------------------------------------------
// Stack traces

interface StackView {
  groupings: FrameGroupingV3[];
  decision: StackDecision;
  values: Array<string[] | undefined>;
  described: Array<string | undefined>;
  ignored: boolean;
}

function viewStacktrace(
  st: Stacktrace | undefined,
  platform: string,
  rules: StackRule[],
  exc: ExceptionValue | undefined,
  notes: Set<string>,
): StackView | undefined {
  const frames = st?.frames;
  if (!frames || frames.length === 0) return undefined;
  const groupings = frames.map((f, i) => groupFrameV3(f, platform, i > 0 ? frames[i - 1] : undefined));
  const ruleFrames = frames.map((frame) => ({
    frame,
    family: familyOf(typeof frame.platform === "string" && frame.platform ? frame.platform : platform),
  }));
  const ruleExc: RuleException | undefined = exc
    ? { type: exc.type, value: exc.value, mechanism: typeof exc.mechanism?.type === "string" ? exc.mechanism.type : undefined }
    : undefined;
  const decision = applyStackRules(
    rules,
    ruleFrames,
    frames.map((f) => f.in_app === true),
    ruleExc,
  );
  const values = groupings.map((g) => (g.contributes ? g.parts.map((p) => `${p.label}=${p.value}`) : undefined));
  const described = groupings.map((g) => (g.contributes ? describeParts(g.parts) : undefined));
  const only = frames[0];
  const ignored =
    frames.length === 1 &&
    only !== undefined &&
    familyOf(typeof only.platform === "string" ? only.platform : platform) === "javascript" &&
    !only.function &&
    URL_PATH.test(only.abs_path ?? "");
  noteRules(
    decision,
    groupings,
    frames.map((f) => f.in_app === true),
    notes,
  );
  return { groupings, decision, values, described, ignored };
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

function addStack(view: StackView | undefined, variant: VariantName, prefix: string, out: Variant, notes: Set<string>): boolean {
  if (!view || view.ignored) return false;
  let picked: number[] = [];
  for (let i = 0; i < view.groupings.length; i++) {
    const g = view.groupings[i] as FrameGroupingV3;
    const d = view.decision.frames[i];
    if (!g.contributes || !d?.group || (variant === "app" && !d.inApp)) continue;
    picked.push(i);
  }
  const max = view.decision.maxFrames;
  if (max && picked.length > max.value) {
    notes.add(`rule: ${variant}: only the ${max.value} newest frames by ${describeRule(max.rule)}`);
    picked = picked.slice(picked.length - max.value);
  }
  const min = view.decision.minFrames;
  if (min && picked.length < min.value) {
    notes.add(`rule: ${variant}: fewer than ${min.value} frames, stack trace ignored by ${describeRule(min.rule)}`);
    return false;
  }
  const lines: string[] = [];
  for (const i of picked) {
    for (const v of view.values[i] ?? []) out.values.push(v);
    const hint = view.groupings[i]?.hint;
    lines.push(`${variant}: ${prefix}frame[${i}] ${view.described[i]}${hint ? ` (${hint})` : ""}`);
  }
  if (lines.length > MAX_FRAME_LINES) {
    out.lines.push(`${variant}: ${prefix}… ${lines.length - MAX_FRAME_LINES} older contributing frames`);
    out.lines.push(...lines.slice(lines.length - MAX_FRAME_LINES));
  } else out.lines.push(...lines);
  return lines.length > 0;
}

function newVariant(name: string): Variant {
  return { name, values: [], lines: [], hasStacktrace: false, contributes: false };
}

function stackVariants(views: Array<{ view: StackView | undefined; prefix: string }>, notes: Set<string>): Variant[] {
  return STACK_VARIANTS.map((name) => {
    const v = newVariant(name);
    for (const { view, prefix } of views) if (addStack(view, name, prefix, v, notes)) v.hasStacktrace = true;
    v.contributes = v.hasStacktrace;
    if (!v.contributes) v.hint = name === "app" ? "no in-app frame contributes" : "no frame contributes";
    return v;
  });
}

// ---------------------------------------------------------------------------------------------
// Strategies

type StrategyFn = (event: NormalizedEvent, rules: StackRule[]) => Strategy | undefined;

const exceptionStrategy: StrategyFn = (event, rules) => {
  const values = event.exception?.values;
  if (!values || values.length === 0) return undefined;
  const noteSet = new Set<string>();
  const views = values.map((exc) => viewStacktrace(exc.stacktrace, event.platform, rules, exc, noteSet));
  const chained = values.length > 1;
  const variants = STACK_VARIANTS.map((name) => {
    const v = newVariant(name);
    // Stacks first: whether any contributes decides whether values may.
    const stackParts = values.map((_exc, i) => {
      const part = newVariant(name);
      const has = addStack(views[i], name, chained ? `exception[${i}] ` : "", part, noteSet);
      return { part, has };
    });
    const anyStack = stackParts.some((s) => s.has);
    values.forEach((exc, i) => {
      const prefix = chained ? `exception[${i}] ` : "";
      const { part } = stackParts[i] as { part: Variant };
      v.values.push(...part.values);
      v.lines.push(...part.lines);
      if (exc.type && exc.mechanism?.synthetic !== true) {
        v.values.push(`type=${exc.type}`);
        v.lines.push(`${name}: ${prefix}type=${exc.type}`);
      }
      if (!anyStack && exc.value) {
        const value = normalizeMessageForGroupingV3(exc.value);
        if (value) {
          v.values.push(`value=${value}`);
          v.lines.push(`${name}: ${prefix}value=${JSON.stringify(value)}`);
        }
      }
    });
    v.hasStacktrace = anyStack;
    v.contributes = v.values.length > 0;
    if (!v.contributes) v.hint = "no exception field contributes";
    return v;
  });
  const notes = [...noteSet];
  const [app, system] = variants;
  if (app && system && !app.hasStacktrace && !system.hasStacktrace) {
    const lines = app.lines.map((l) => `exception${l.slice(3)}`);
    return { source: "exception", variants: [{ ...app, name: "exception", lines }], notes };
  }
  return { source: "exception", variants, notes };
};

function groupingThread(threads: Thread[]): Thread | undefined {
  const one = (list: Thread[]) => (list.length === 1 && list[0]?.stacktrace ? list[0] : undefined);
  return one(threads.filter((t) => t.crashed === true)) ?? one(threads.filter((t) => t.current === true)) ?? one(threads);
}

const threadsStrategy: StrategyFn = (event, rules) => {
  const thread = groupingThread(event.threads?.values ?? []);
  if (!thread) return undefined;
  const notes = new Set<string>();
  const view = viewStacktrace(thread.stacktrace, event.platform, rules, undefined, notes);
  const variants = stackVariants([{ view, prefix: "thread " }], notes);
  return { source: "threads", variants, notes: [...notes] };
};

const stacktraceStrategy: StrategyFn = (event, rules) => {
  const st = event.stacktrace as Stacktrace | undefined;
  if (!st || typeof st !== "object" || !Array.isArray(st.frames)) return undefined;
  const notes = new Set<string>();
  const variants = stackVariants([{ view: viewStacktrace(st, event.platform, rules, undefined, notes), prefix: "" }], notes);
  return { source: "stacktrace", variants, notes: [...notes] };
};

const messageStrategy: StrategyFn = (event) => {
  const text = event.logentry?.message ?? event.logentry?.formatted;
  if (typeof text !== "string") return undefined;
  const message = normalizeMessageForGroupingV3(text);
  if (message === "") return undefined;
  return {
    source: "message",
    variants: [
      {
        name: "message",
        values: [`message=${message}`],
        lines: [`message: ${JSON.stringify(message)}`],
        hasStacktrace: false,
        contributes: true,
      },
    ],
    notes: [],
  };
};

const STRATEGIES: StrategyFn[] = [exceptionStrategy, threadsStrategy, stacktraceStrategy, messageStrategy];

function defaultStrategy(event: NormalizedEvent, rules: StackRule[]): Strategy {
  for (const strategy of STRATEGIES) {
    const result = strategy(event, rules);
    if (!result) continue;
    dropVariantsWithoutStacktrace(result.variants);
    if (result.variants.some((v) => v.contributes)) return result;
  }
  return {
    source: "fallback",
    variants: [
      { name: "fallback", values: ["fallback"], lines: ["fallback: nothing to group on"], hasStacktrace: false, contributes: true },
    ],
    notes: [],
  };
}

// ---------------------------------------------------------------------------------------------
// Assembly

export function groupingKeyV3(event: NormalizedEvent, ctx: GroupingContext = {}): GroupingKey {
  const rules = ctx.stackRules && ctx.stackRules.length > 0 ? [...BUILTIN_STACK_RULES, ...ctx.stackRules] : BUILTIN_STACK_RULES;
  const fingerprint = event.fingerprint;
  if (fingerprint && fingerprint.length > 0) {
    const resolve = (f: string, e: NormalizedEvent) => resolveFingerprintEntry(f, e, { messageFromException: true });
    return fingerprintKey(event, fingerprint, resolve, () => defaultStrategy(event, rules));
  }
  return toKey(defaultStrategy(event, rules));
}
