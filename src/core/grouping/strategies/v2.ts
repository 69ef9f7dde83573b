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
 */
import type { ExceptionValue, Frame, NormalizedEvent, Stacktrace, Thread } from "../../event";
import { fingerprintVariable, isDefaultEntry, resolveFingerprintEntry } from "../fingerprint";
import { normalizeMessageForGrouping } from "../parameterize";
import type { GroupingKey, GroupingVariant } from "../types";
import { describeParts, type FrameGrouping, familyOf, groupFrame } from "./frames";

export const VERSION = "v2";

type VariantName = "app" | "system";
const STACK_VARIANTS: VariantName[] = ["app", "system"];

/** Separates hashed values; cannot occur in normalised SDK strings that matter. */
const SEP = "\u001f";

/** Frame lines shown per stack trace and variant (all frames are hashed regardless). */
const MAX_FRAME_LINES = 40;

interface Variant {
  name: string;
  /** `label=value` entries, hashed in order */
  values: string[];
  /** human-readable lines for "why grouped here" */
  lines: string[];
  hasStacktrace: boolean;
  contributes: boolean;
  hint?: string;
}

interface Strategy {
  source: string;
  variants: Variant[];
}

// ---------------------------------------------------------------------------------------------
// Stack traces

interface StackView {
  frames: Frame[];
  groupings: FrameGrouping[];
  /**
   * Per frame, built once for both variants (an in-app frame is in both): its hashed
   * `label=value` entries and its description; undefined for frames that do not contribute.
   */
  values: Array<string[] | undefined>;
  described: Array<string | undefined>;
  /** a single JS frame without function pointing at a URL carries no information */
  ignored: boolean;
}

const URL_PATH = /^(?:https?|applewebdata|blob|file):/i;

function viewStacktrace(st: Stacktrace | undefined, platform: string): StackView | undefined {
  const frames = st?.frames;
  if (!frames || frames.length === 0) return undefined;
  const groupings = frames.map((f, i) => groupFrame(f, platform, i > 0 ? frames[i - 1] : undefined));
  const values = groupings.map((g) => (g.contributes ? g.parts.map((p) => `${p.label}=${p.value}`) : undefined));
  const described = groupings.map((g) => (g.contributes ? describeParts(g.parts) : undefined));
  const only = frames[0];
  const ignored =
    frames.length === 1 &&
    only !== undefined &&
    familyOf(typeof only.platform === "string" ? only.platform : platform) === "javascript" &&
    !only.function &&
    URL_PATH.test(only.abs_path ?? "");
  return { frames, groupings, values, described, ignored };
}

/** Adds the stack's contributing frames for `variant`; returns whether any contributed. */
function addStack(view: StackView | undefined, variant: VariantName, prefix: string, out: Variant): boolean {
  if (!view || view.ignored) return false;
  const lines: string[] = [];
  for (let i = 0; i < view.groupings.length; i++) {
    const g = view.groupings[i] as FrameGrouping;
    if (!g.contributes || (variant === "app" && !g.inApp)) continue;
    for (const v of view.values[i] ?? []) out.values.push(v);
    lines.push(`${variant}: ${prefix}frame[${i}] ${view.described[i]}`);
  }
  // The newest frames explain the error; beyond a screenful the list is noise in every payload.
  if (lines.length > MAX_FRAME_LINES) {
    out.lines.push(`${variant}: ${prefix}… ${lines.length - MAX_FRAME_LINES} older contributing frames`);
    out.lines.push(...lines.slice(lines.length - MAX_FRAME_LINES));
  } else out.lines.push(...lines);
  return lines.length > 0;
}

function stackVariants(views: Array<{ view: StackView | undefined; prefix: string }>): Variant[] {
  return STACK_VARIANTS.map((name) => {
    const v: Variant = { name, values: [], lines: [], hasStacktrace: false, contributes: false };
    for (const { view, prefix } of views) if (addStack(view, name, prefix, v)) v.hasStacktrace = true;
    v.contributes = v.hasStacktrace;
    if (!v.contributes) v.hint = name === "app" ? "no in-app frame contributes" : "no frame contributes";
    return v;
  });
}

// ---------------------------------------------------------------------------------------------
// Strategies

function exceptionStrategy(event: NormalizedEvent): Strategy | undefined {
  const values = event.exception?.values;
  if (!values || values.length === 0) return undefined;
  const views = values.map((exc) => viewStacktrace(exc.stacktrace, event.platform));
  const variants = STACK_VARIANTS.map((name) => {
    const v: Variant = { name, values: [], lines: [], hasStacktrace: false, contributes: false };
    values.forEach((exc, i) => {
      addException(exc, views[i], i, values.length > 1, name, v);
    });
    v.contributes = v.values.length > 0;
    if (!v.contributes) v.hint = "no exception field contributes";
    return v;
  });
  const [app, system] = variants;
  if (app && system && !app.hasStacktrace && !system.hasStacktrace) {
    // No stack trace anywhere: app and system are the same type/value list; show it once.
    const lines = app.lines.map((l) => `exception${l.slice(3)}`);
    return { source: "exception", variants: [{ ...app, name: "exception", lines }] };
  }
  return { source: "exception", variants };
}

function addException(
  exc: ExceptionValue,
  view: StackView | undefined,
  index: number,
  chained: boolean,
  name: VariantName,
  out: Variant,
): void {
  const prefix = chained ? `exception[${index}] ` : "";
  const stack = addStack(view, name, prefix, out);
  if (stack) out.hasStacktrace = true;
  // A synthetic type (a signal name, an exception code) says nothing about the error.
  if (exc.type && exc.mechanism?.synthetic !== true) {
    out.values.push(`type=${exc.type}`);
    out.lines.push(`${name}: ${prefix}type=${exc.type}`);
  }
  if (!stack && exc.value) {
    const value = normalizeMessageForGrouping(exc.value);
    if (value) {
      out.values.push(`value=${value}`);
      out.lines.push(`${name}: ${prefix}value=${JSON.stringify(value)}`);
    }
  }
}

/** Sentry's choice: the one crashed thread, else the one current thread, else the only thread. */
function groupingThread(threads: Thread[]): Thread | undefined {
  const one = (list: Thread[]) => (list.length === 1 && list[0]?.stacktrace ? list[0] : undefined);
  return one(threads.filter((t) => t.crashed === true)) ?? one(threads.filter((t) => t.current === true)) ?? one(threads);
}

function threadsStrategy(event: NormalizedEvent): Strategy | undefined {
  const thread = groupingThread(event.threads?.values ?? []);
  if (!thread) return undefined;
  return { source: "threads", variants: stackVariants([{ view: viewStacktrace(thread.stacktrace, event.platform), prefix: "thread " }]) };
}

function stacktraceStrategy(event: NormalizedEvent): Strategy | undefined {
  const st = event.stacktrace as Stacktrace | undefined;
  if (!st || typeof st !== "object" || !Array.isArray(st.frames)) return undefined;
  return { source: "stacktrace", variants: stackVariants([{ view: viewStacktrace(st, event.platform), prefix: "" }]) };
}

function messageStrategy(event: NormalizedEvent): Strategy | undefined {
  // The template first: parameters never split issues.
  const text = event.logentry?.message ?? event.logentry?.formatted;
  if (typeof text !== "string") return undefined;
  const message = normalizeMessageForGrouping(text);
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
  };
}

const STRATEGIES = [exceptionStrategy, threadsStrategy, stacktraceStrategy, messageStrategy];

/** When any variant has a contributing stack trace, the others stop contributing (§7.1). */
function dropVariantsWithoutStacktrace(variants: Variant[]): void {
  const withStack = variants.filter((v) => v.contributes && v.hasStacktrace);
  if (withStack.length === 0) return;
  for (const v of variants) {
    if (v.contributes && !v.hasStacktrace) {
      v.contributes = false;
      v.hint = `no contributing stack trace, but the ${withStack.map((w) => w.name).join(" and ")} variant has one`;
    }
  }
}

function defaultStrategy(event: NormalizedEvent): Strategy {
  const notes: Variant[] = [];
  for (const strategy of STRATEGIES) {
    const result = strategy(event);
    if (!result) continue;
    dropVariantsWithoutStacktrace(result.variants);
    if (result.variants.some((v) => v.contributes)) return result;
  }
  notes.push({ name: "fallback", values: ["fallback"], lines: ["fallback: nothing to group on"], hasStacktrace: false, contributes: true });
  return { source: "fallback", variants: notes };
}

// ---------------------------------------------------------------------------------------------
// Assembly

function toKey(strategy: Strategy, extraLines: string[] = []): GroupingKey {
  const variants: GroupingVariant[] = [];
  const components: string[] = [];
  const seen = new Map<string, string>();
  for (const v of strategy.variants) {
    if (!v.contributes) {
      components.push(`${v.name}: not used (${v.hint ?? "does not contribute"})`);
      continue;
    }
    const key = v.values.join(SEP);
    const same = seen.get(key);
    if (same !== undefined) {
      components.push(`${v.name}: same values as ${same}`);
      continue;
    }
    seen.set(key, v.name);
    variants.push({ name: v.name, key });
    components.push(...v.lines);
  }
  components.push(...extraLines);
  return { source: strategy.source, components, key: variants[0]?.key ?? "", variants };
}

function fingerprintKey(event: NormalizedEvent, fingerprint: string[]): GroupingKey {
  const hybrid = fingerprint.some(isDefaultEntry);
  const resolved = fingerprint.map((f) => (isDefaultEntry(f) ? f : resolveFingerprintEntry(f, event)));
  const shown = resolved.map((r, i) => {
    const entry = fingerprint[i] ?? "";
    if (isDefaultEntry(entry)) return entry;
    return fingerprintVariable(entry) ? `${entry}=${JSON.stringify(r)}` : JSON.stringify(r);
  });
  if (!hybrid) {
    // Custom: the default algorithm does not contribute at all.
    const key = ["fingerprint", ...resolved].join(SEP);
    return {
      source: "fingerprint",
      components: [`custom-fingerprint: [${shown.join(", ")}]`],
      key,
      variants: [{ name: "custom-fingerprint", key }],
    };
  }
  const def = defaultStrategy(event);
  if (fingerprint.length === 1) return toKey(def);
  // Hybrid: every default variant, further split by the other entries (in place).
  const variants = def.variants.map((v) => ({
    ...v,
    values: resolved.flatMap((r) => (isDefaultEntry(r) ? v.values : [`fingerprint=${r}`])),
  }));
  return toKey({ source: `${def.source}+fingerprint`, variants }, [`fingerprint: [${shown.join(", ")}]`]);
}

export function groupingKeyV2(event: NormalizedEvent): GroupingKey {
  const fingerprint = event.fingerprint;
  if (fingerprint && fingerprint.length > 0) return fingerprintKey(event, fingerprint);
  return toKey(defaultStrategy(event));
}
