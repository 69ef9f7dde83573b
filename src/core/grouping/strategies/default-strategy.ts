/**
 * The default algorithm v2 and v3 share (reference §7.1–7.3), when no custom fingerprint decides:
 *
 *   chained exceptions (per exception: stack trace, type unless synthetic, parameterised value
 *   when no stack trace stands in for it) › the crashed thread's stack trace › the event's stack
 *   trace › parameterised message › fallback.
 *
 * Stack traces yield two variants: `app` (in-app frames only) and `system` (all frames). A
 * version states only what it does differently (`GroupingVersion`): how a stack trace's frames
 * group, when an exception's value still counts, how messages are parameterised. v2's output must
 * never change (its hashes are stored): a later version that needs another step here adds an
 * option for it rather than editing the shared path.
 */
import type { ExceptionValue, Frame, NormalizedEvent, Stacktrace, Thread } from "../../event";
import { dropVariantsWithoutStacktrace, type Strategy, type Variant } from "./assemble-key";
import { familyOf } from "./frames";

export type StackVariantName = "app" | "system";
const STACK_VARIANTS: StackVariantName[] = ["app", "system"];

/** Frame lines shown per stack trace and variant (all frames are hashed regardless). */
const MAX_FRAME_LINES = 40;

const URL_PATH = /^(?:https?|applewebdata|blob|file):/i;

/** One stack trace as a version groups it, built once for both variants. */
export interface StackTraceView {
  /** per frame: its hashed `label=value` entries; undefined for frames that do not contribute */
  values: Array<string[] | undefined>;
  /** per frame: what its "why grouped here" line says after `frame[i]` */
  described: Array<string | undefined>;
  /**
   * The frames that group in `variant`, oldest first; undefined when the whole stack trace is
   * left out of it. Names any rule that decided in `notes`.
   */
  pick(variant: StackVariantName, notes: Set<string>): number[] | undefined;
}

/** What a grouping version decides; everything else in the default algorithm is shared. */
export interface GroupingVersion {
  /** groups a stack trace's frames (never empty); `exc` is the exception that carries it */
  viewStack(frames: Frame[], platform: string, exc: ExceptionValue | undefined, notes: Set<string>): StackTraceView;
  /**
   * When an exception's value is hashed: `own-stack-missing` when that exception's own stack
   * trace does not contribute (v2), `no-stack` only when no exception's stack trace does (v3).
   */
  valuesWhen: "own-stack-missing" | "no-stack";
  normalizeMessage(text: string): string;
}

// ---------------------------------------------------------------------------------------------
// Stack traces

interface ViewedStack {
  view: StackTraceView;
  /** a single JS frame without function pointing at a URL carries no information */
  ignored: boolean;
}

function viewStacktrace(
  version: GroupingVersion,
  st: Stacktrace | undefined,
  platform: string,
  exc: ExceptionValue | undefined,
  notes: Set<string>,
): ViewedStack | undefined {
  const frames = st?.frames;
  if (!frames || frames.length === 0) return undefined;
  const view = version.viewStack(frames, platform, exc, notes);
  const only = frames[0];
  const ignored =
    frames.length === 1 &&
    only !== undefined &&
    familyOf(typeof only.platform === "string" ? only.platform : platform) === "javascript" &&
    !only.function &&
    URL_PATH.test(only.abs_path ?? "");
  return { view, ignored };
}

/** Adds the stack's contributing frames for `variant`; returns whether any contributed. */
function addStack(stack: ViewedStack | undefined, variant: StackVariantName, prefix: string, out: Variant, notes: Set<string>): boolean {
  if (!stack || stack.ignored) return false;
  const picked = stack.view.pick(variant, notes);
  if (!picked) return false;
  const lines: string[] = [];
  for (const i of picked) {
    for (const v of stack.view.values[i] ?? []) out.values.push(v);
    lines.push(`${variant}: ${prefix}frame[${i}] ${stack.view.described[i]}`);
  }
  // The newest frames explain the error; beyond a screenful the list is noise in every payload.
  if (lines.length > MAX_FRAME_LINES) {
    out.lines.push(`${variant}: ${prefix}… ${lines.length - MAX_FRAME_LINES} older contributing frames`);
    out.lines.push(...lines.slice(lines.length - MAX_FRAME_LINES));
  } else out.lines.push(...lines);
  return lines.length > 0;
}

function newVariant(name: string): Variant {
  return { name, values: [], lines: [], hasStacktrace: false, contributes: false };
}

function stackVariants(stack: ViewedStack | undefined, prefix: string, notes: Set<string>): Variant[] {
  return STACK_VARIANTS.map((name) => {
    const v = newVariant(name);
    v.hasStacktrace = addStack(stack, name, prefix, v, notes);
    v.contributes = v.hasStacktrace;
    if (!v.contributes) v.hint = name === "app" ? "no in-app frame contributes" : "no frame contributes";
    return v;
  });
}

// ---------------------------------------------------------------------------------------------
// Strategies

type StrategyFn = (event: NormalizedEvent, version: GroupingVersion) => Strategy | undefined;

/** One variant of the chained exceptions: per exception its stack trace, type and maybe value. */
function exceptionVariant(
  name: StackVariantName,
  values: ExceptionValue[],
  stacks: Array<ViewedStack | undefined>,
  version: GroupingVersion,
  notes: Set<string>,
): Variant {
  const prefixOf = (i: number) => (values.length > 1 ? `exception[${i}] ` : "");
  // Stacks first: whether any contributes may decide whether values do.
  const parts = values.map((_exc, i) => {
    const part = newVariant(name);
    return { part, has: addStack(stacks[i], name, prefixOf(i), part, notes) };
  });
  const anyStack = parts.some((p) => p.has);
  const v = newVariant(name);
  values.forEach((exc, i) => {
    const prefix = prefixOf(i);
    const { part, has } = parts[i] as { part: Variant; has: boolean };
    v.values.push(...part.values);
    v.lines.push(...part.lines);
    // A synthetic type (a signal name, an exception code) says nothing about the error.
    if (exc.type && exc.mechanism?.synthetic !== true) {
      v.values.push(`type=${exc.type}`);
      v.lines.push(`${name}: ${prefix}type=${exc.type}`);
    }
    const stackStandsIn = version.valuesWhen === "no-stack" ? anyStack : has;
    if (stackStandsIn || !exc.value) return;
    const value = version.normalizeMessage(exc.value);
    if (!value) return;
    v.values.push(`value=${value}`);
    v.lines.push(`${name}: ${prefix}value=${JSON.stringify(value)}`);
  });
  v.hasStacktrace = anyStack;
  v.contributes = v.values.length > 0;
  if (!v.contributes) v.hint = "no exception field contributes";
  return v;
}

const exceptionStrategy: StrategyFn = (event, version) => {
  const values = event.exception?.values;
  if (!values || values.length === 0) return undefined;
  const notes = new Set<string>();
  const stacks = values.map((exc) => viewStacktrace(version, exc.stacktrace, event.platform, exc, notes));
  const variants = STACK_VARIANTS.map((name) => exceptionVariant(name, values, stacks, version, notes));
  const [app, system] = variants;
  if (app && system && !app.hasStacktrace && !system.hasStacktrace) {
    // No stack trace anywhere: app and system are the same type/value list; show it once.
    const lines = app.lines.map((l) => `exception${l.slice(3)}`);
    return { source: "exception", variants: [{ ...app, name: "exception", lines }], notes: [...notes] };
  }
  return { source: "exception", variants, notes: [...notes] };
};

/** Sentry's choice: the one crashed thread, else the one current thread, else the only thread. */
function groupingThread(threads: Thread[]): Thread | undefined {
  const one = (list: Thread[]) => (list.length === 1 && list[0]?.stacktrace ? list[0] : undefined);
  return one(threads.filter((t) => t.crashed === true)) ?? one(threads.filter((t) => t.current === true)) ?? one(threads);
}

const threadsStrategy: StrategyFn = (event, version) => {
  const thread = groupingThread(event.threads?.values ?? []);
  if (!thread) return undefined;
  const notes = new Set<string>();
  const stack = viewStacktrace(version, thread.stacktrace, event.platform, undefined, notes);
  const variants = stackVariants(stack, "thread ", notes);
  return { source: "threads", variants, notes: [...notes] };
};

const stacktraceStrategy: StrategyFn = (event, version) => {
  const st = event.stacktrace as Stacktrace | undefined;
  if (!st || typeof st !== "object" || !Array.isArray(st.frames)) return undefined;
  const notes = new Set<string>();
  const variants = stackVariants(viewStacktrace(version, st, event.platform, undefined, notes), "", notes);
  return { source: "stacktrace", variants, notes: [...notes] };
};

const messageStrategy: StrategyFn = (event, version) => {
  // The template first: parameters never split issues.
  const text = event.logentry?.message ?? event.logentry?.formatted;
  if (typeof text !== "string") return undefined;
  const message = version.normalizeMessage(text);
  if (message === "") return undefined;
  const lines = [`message: ${JSON.stringify(message)}`];
  return {
    source: "message",
    variants: [{ name: "message", values: [`message=${message}`], lines, hasStacktrace: false, contributes: true }],
  };
};

const STRATEGIES: StrategyFn[] = [exceptionStrategy, threadsStrategy, stacktraceStrategy, messageStrategy];

/** The first strategy with a contributing variant, else the fallback. */
export function defaultStrategy(event: NormalizedEvent, version: GroupingVersion): Strategy {
  for (const strategy of STRATEGIES) {
    const result = strategy(event, version);
    if (!result) continue;
    dropVariantsWithoutStacktrace(result.variants);
    if (result.variants.some((v) => v.contributes)) return result;
  }
  const lines = ["fallback: nothing to group on"];
  return { source: "fallback", variants: [{ name: "fallback", values: ["fallback"], lines, hasStacktrace: false, contributes: true }] };
}
