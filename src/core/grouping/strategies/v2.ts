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
import { resolveFingerprintEntry } from "../fingerprint";
import { normalizeMessageForGrouping } from "../parameterize";
import type { GroupingKey } from "../types";
import { dropVariantsWithoutStacktrace, fingerprintKey, type Strategy, toKey, type Variant } from "./assemble-key";
import { describeParts, type FrameGrouping, familyOf, groupFrame } from "./frames";

export const VERSION = "v2";

type VariantName = "app" | "system";
const STACK_VARIANTS: VariantName[] = ["app", "system"];

/** Frame lines shown per stack trace and variant (all frames are hashed regardless). */
const MAX_FRAME_LINES = 40;

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

export function groupingKeyV2(event: NormalizedEvent): GroupingKey {
  const fingerprint = event.fingerprint;
  if (fingerprint && fingerprint.length > 0)
    return fingerprintKey(
      event,
      fingerprint,
      (f, e) => resolveFingerprintEntry(f, e),
      () => defaultStrategy(event),
    );
  return toKey(defaultStrategy(event));
}
