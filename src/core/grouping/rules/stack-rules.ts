/**
 * Stack-trace rules in Sentry's syntax ("Stack Trace Rules" / grouping enhancements):
 *
 *   [ caller matchers ] | matchers | [ callee matchers ]  actions
 *
 * Matchers: `stack.function`/`function`, `stack.module`/`module`, `stack.abs_path`/`path`,
 * `stack.package`/`package`, `family`, `app`, `category`, and for the exception the frames belong
 * to `error.type`/`type`, `error.value`/`value`, `error.mechanism`/`mechanism`; `!` negates.
 * Actions: `+app`/`-app`, `+group`/`-group`, each optionally `^` (the frames after the match, toward
 * the crash) or `v` (the frames before it, toward the thread's start); `max-frames=N`,
 * `min-frames=N`, `category=name`, `invert-stacktrace=0|1`.
 *
 * Rules run in order over a stack's frames; a later rule overrides an earlier one, and matchers
 * see what earlier rules decided (`app:`, `category:`). Pure: frames are never modified.
 */
import type { Frame } from "../../event";
import { compileGlob, normalizePath } from "./glob";
import { type RuleError, RuleSyntaxError, ruleLines, splitMatcher, type Token, tokenize } from "./syntax";

export type Family = "javascript" | "native" | "other";

/** What rules read of a frame. */
export interface RuleFrame {
  frame: Frame;
  family: Family;
  /** abs_path and filename normalised for path matchers (computed on first use) */
  paths?: string[];
}

/** What rules read of the exception owning the stack (none for thread / event stacks). */
export interface RuleException {
  type?: string;
  value?: string;
  mechanism?: string;
}

type FrameField = "function" | "module" | "path" | "package" | "family" | "app" | "category";
type ExceptionField = "type" | "value" | "mechanism";

const FIELD_ALIASES: Record<string, FrameField | ExceptionField> = {
  function: "function",
  "stack.function": "function",
  module: "module",
  "stack.module": "module",
  path: "path",
  "stack.abs_path": "path",
  "stack.path": "path",
  package: "package",
  "stack.package": "package",
  family: "family",
  app: "app",
  "stack.app": "app",
  category: "category",
  type: "type",
  "error.type": "type",
  value: "value",
  "error.value": "value",
  mechanism: "mechanism",
  "error.mechanism": "mechanism",
};

const APP_VALUES: Record<string, boolean> = { yes: true, true: true, "1": true, no: false, false: false, "0": false };
const FAMILIES = new Set(["javascript", "native", "other", "all"]);

interface Matcher {
  field: FrameField | ExceptionField;
  negated: boolean;
  test(state: FrameState, exc: RuleException | undefined): boolean;
}

type FlagName = "app" | "group";
type Range = "self" | "up" | "down";

export type Action =
  | { kind: "flag"; flag: FlagName; value: boolean; range: Range }
  | { kind: "var"; name: "max-frames" | "min-frames"; value: number }
  | { kind: "var"; name: "category"; value: string }
  | { kind: "var"; name: "invert-stacktrace"; value: boolean };

export interface StackRule {
  /** 1-based line in its text; 0 for built-in rules */
  line: number;
  /** the rule as written, shown as the reason in "why grouped here" */
  text: string;
  builtin: boolean;
  caller: Matcher[];
  matchers: Matcher[];
  callee: Matcher[];
  actions: Action[];
  /** only exception matchers: decide once per stack */
  exceptionOnly: boolean;
}

export interface ParsedStackRules {
  rules: StackRule[];
  errors: RuleError[];
}

/** Per-frame state while rules run. */
interface FrameState {
  rf: RuleFrame;
  inApp: boolean;
  group: boolean;
  category: string | undefined;
  appRule?: StackRule;
  groupRule?: StackRule;
}

function compileMatcher(key: string, value: string, negated: boolean): Matcher {
  const field = FIELD_ALIASES[key];
  if (!field) throw new RuleSyntaxError(`unknown matcher "${key}"`);
  if (value === "") throw new RuleSyntaxError(`"${key}:" needs a value`);
  const pos = positive(field, value);
  return { field, negated, test: negated ? (s, e) => !pos(s, e) : pos };
}

function positive(field: FrameField | ExceptionField, value: string): (s: FrameState, e: RuleException | undefined) => boolean {
  switch (field) {
    case "family": {
      const wanted = value.split(",").map((v) => v.trim());
      for (const w of wanted) if (!FAMILIES.has(w)) throw new RuleSyntaxError(`unknown family "${w}" (javascript, native, other, all)`);
      if (wanted.includes("all")) return () => true;
      return (s) => wanted.includes(s.rf.family);
    }
    case "app": {
      const want = APP_VALUES[value.toLowerCase()];
      if (want === undefined) throw new RuleSyntaxError(`"app:" takes yes or no, not "${value}"`);
      return (s) => s.inApp === want;
    }
    case "category": {
      const g = compileGlob(value, false);
      return (s) => s.category !== undefined && g(s.category);
    }
    case "path": {
      const g = compileGlob(value, true);
      return (s) => {
        s.rf.paths ??= framePaths(s.rf.frame);
        for (const p of s.rf.paths) if (g(p)) return true;
        return false;
      };
    }
    case "package": {
      const g = compileGlob(value, true);
      return (s) => typeof s.rf.frame.package === "string" && g(normalizePath(s.rf.frame.package));
    }
    case "function": {
      const g = compileGlob(value, false);
      return (s) => {
        const f = s.rf.frame.function ?? s.rf.frame.raw_function;
        return typeof f === "string" && g(f);
      };
    }
    case "module": {
      const g = compileGlob(value, false);
      return (s) => typeof s.rf.frame.module === "string" && g(s.rf.frame.module);
    }
    case "type":
    case "value":
    case "mechanism": {
      const g = compileGlob(value, false);
      return (_s, e) => {
        const v = e?.[field];
        return typeof v === "string" && g(v);
      };
    }
  }
}

/**
 * What path matchers try for a frame: abs_path and filename, normalised, each also with a leading
 * slash when it has none (so `**​/x/**` matches `x/y`).
 */
export function framePaths(frame: Frame): string[] {
  const out: string[] = [];
  for (const p of [frame.abs_path, frame.filename]) {
    if (typeof p !== "string" || p === "") continue;
    const n = normalizePath(p);
    if (out.includes(n)) continue;
    out.push(n);
    if (!n.startsWith("/")) out.push(`/${n}`);
  }
  return out;
}

function parseAction(word: string): Action {
  const eq = word.indexOf("=");
  if (eq > 0) {
    const name = word.slice(0, eq);
    const raw = word.slice(eq + 1);
    if (name === "max-frames" || name === "min-frames") {
      const n = Number(raw);
      if (!/^\d+$/.test(raw) || n > 10_000) throw new RuleSyntaxError(`"${name}=" takes a whole number`);
      return { kind: "var", name, value: n };
    }
    if (name === "category") {
      if (raw === "") throw new RuleSyntaxError('"category=" needs a name');
      return { kind: "var", name, value: raw };
    }
    if (name === "invert-stacktrace") {
      if (raw !== "0" && raw !== "1") throw new RuleSyntaxError('"invert-stacktrace=" takes 0 or 1');
      return { kind: "var", name, value: raw === "1" };
    }
    throw new RuleSyntaxError(`unknown action "${name}="`);
  }
  const m = /^([v^]?)([+-])(app|group)$/.exec(word);
  if (!m) throw new RuleSyntaxError(`"${word}" is neither a matcher (key:value) nor an action (+app, -group, ^-group, max-frames=N …)`);
  const range: Range = m[1] === "^" ? "up" : m[1] === "v" ? "down" : "self";
  return { kind: "flag", flag: m[3] as FlagName, value: m[2] === "+", range };
}

function readMatchers(tokens: Token[], start: number, until: "]" | "actions"): { matchers: Matcher[]; next: number } {
  const matchers: Matcher[] = [];
  let i = start;
  for (; i < tokens.length; i++) {
    const t = tokens[i] as Token;
    if (t.kind === "punct") break;
    const m = splitMatcher(t.text);
    if (!m) break;
    matchers.push(compileMatcher(m.key, m.value, m.negated));
  }
  if (until === "]") {
    if (tokens[i]?.text !== "]") throw new RuleSyntaxError('"[" without a closing "]"');
    i += 1;
  }
  return { matchers, next: i };
}

/** Parses one rule line; throws RuleSyntaxError with a message for the user. */
export function parseStackRule(text: string, line: number, builtin = false): StackRule {
  const tokens = tokenize(text, false);
  let i = 0;
  let caller: Matcher[] = [];
  let callee: Matcher[] = [];
  if (tokens[0]?.text === "[" && tokens[0].kind === "punct") {
    const r = readMatchers(tokens, 1, "]");
    caller = r.matchers;
    i = r.next;
    if (tokens[i]?.text !== "|") throw new RuleSyntaxError('a caller "[ … ]" must be followed by "|"');
    i += 1;
  }
  const main = readMatchers(tokens, i, "actions");
  i = main.next;
  if (tokens[i]?.text === "|") {
    if (tokens[i + 1]?.text !== "[") throw new RuleSyntaxError('"|" must be followed by a callee "[ … ]"');
    const r = readMatchers(tokens, i + 2, "]");
    callee = r.matchers;
    i = r.next;
  }
  if (main.matchers.length === 0) throw new RuleSyntaxError("a rule starts with at least one matcher, such as stack.module:foo.*");
  const actions: Action[] = [];
  for (; i < tokens.length; i++) {
    const t = tokens[i] as Token;
    if (t.kind === "punct") throw new RuleSyntaxError(`unexpected "${t.text}"`);
    if (splitMatcher(t.text) && !t.text.includes("=")) throw new RuleSyntaxError(`matcher "${t.text}" after an action`);
    actions.push(parseAction(t.text));
  }
  if (actions.length === 0)
    throw new RuleSyntaxError("the rule has no action (+app, -app, +group, -group, ^-group, v-group, max-frames=N …)");
  const exceptionOnly =
    caller.length === 0 &&
    callee.length === 0 &&
    main.matchers.every((m) => m.field === "type" || m.field === "value" || m.field === "mechanism");
  return { line, text, builtin, caller, matchers: main.matchers, callee, actions, exceptionOnly };
}

/** Parses a rule text; every bad line yields an error and is left out. */
export function parseStackRules(text: string, builtin = false): ParsedStackRules {
  const rules: StackRule[] = [];
  const errors: RuleError[] = [];
  for (const { line, text: t } of ruleLines(text)) {
    try {
      rules.push(parseStackRule(t, line, builtin));
    } catch (err) {
      if (!(err instanceof RuleSyntaxError)) throw err;
      errors.push({ line, message: err.message });
    }
  }
  return { rules, errors };
}

// ---------------------------------------------------------------------------------------------
// Applying rules

export interface FrameDecision {
  inApp: boolean;
  /** false: the frame does not contribute to grouping */
  group: boolean;
  category?: string;
  /** the rule that last set in_app / group, when one did */
  appRule?: StackRule;
  groupRule?: StackRule;
}

export interface StackDecision {
  frames: FrameDecision[];
  /** keep only the N contributing frames closest to the crash */
  maxFrames?: { value: number; rule: StackRule };
  /** a stack with fewer contributing frames than this does not contribute */
  minFrames?: { value: number; rule: StackRule };
}

// Runs for every rule and frame of every event: a plain loop, no closure per call.
function all(ms: Matcher[], s: FrameState | undefined, e: RuleException | undefined): boolean {
  if (s === undefined) return false;
  for (let i = 0; i < ms.length; i++) if (!(ms[i] as Matcher).test(s, e)) return false;
  return true;
}

/**
 * Runs `rules` over one stack (frames oldest first, as SDKs send them). `inApp` is each frame's
 * in-app flag before rules (the SDK's). Frames are only read.
 */
export function applyStackRules(rules: StackRule[], frames: RuleFrame[], inApp: boolean[], exc?: RuleException): StackDecision {
  const states: FrameState[] = frames.map((rf, i) => ({ rf, inApp: inApp[i] === true, group: true, category: undefined }));
  const out: StackDecision = { frames: [] };
  const builtin = builtinPrefix(rules);
  // Which built-in rules the frames' own fields (module, function, path…) allow, from the cache.
  const allowed = builtin ? states.map((s) => staticMatches(builtin, s)) : undefined;
  // Most built-in rules match no frame of a stack: skip those whole.
  const anyFrame = builtin ? new Uint8Array(builtin.rules.length) : undefined;
  if (anyFrame && allowed) for (const bits of allowed) for (let r = 0; r < bits.length; r++) anyFrame[r] |= bits[r] as number;
  for (let r = 0; r < rules.length; r++) {
    const rule = rules[r] as StackRule;
    if (rule.exceptionOnly) {
      // Decided once for the stack; frame-less actions only make sense here, flags hit every frame.
      if (!all(rule.matchers, states[0] ?? EMPTY_STATE, exc)) continue;
      for (let i = 0; i < states.length; i++) applyActions(rule, states, i, out, true);
      if (states.length === 0) applyActions(rule, states, -1, out, true);
      continue;
    }
    const cached = builtin !== undefined && r < builtin.rules.length;
    if (cached && anyFrame?.[r] === 0) continue;
    const matchers = cached ? (builtin.dynamic[r] as Matcher[]) : rule.matchers;
    for (let i = 0; i < states.length; i++) {
      const s = states[i] as FrameState;
      // Native frames keep v2's treatment: built-in rules are for the other families.
      if (rule.builtin && s.rf.family === "native") continue;
      if (cached && allowed !== undefined && (allowed[i] as Uint8Array)[r] === 0) continue;
      if (!all(matchers, s, exc)) continue;
      if (rule.caller.length > 0 && !all(rule.caller, states[i - 1], exc)) continue;
      if (rule.callee.length > 0 && !all(rule.callee, states[i + 1], exc)) continue;
      applyActions(rule, states, i, out, false);
    }
  }
  out.frames = states.map((s) => ({ inApp: s.inApp, group: s.group, category: s.category, appRule: s.appRule, groupRule: s.groupRule }));
  return out;
}

const EMPTY_STATE: FrameState = { rf: { frame: {}, family: "other" }, inApp: false, group: true, category: undefined };

// The built-in rules run over every frame of every event. What a rule's matchers on the frame's
// own fields (family, module, function, path, package) decide depends on those fields alone, and
// the same frames come back event after event, so it is cached per frame signature; matchers on
// state (app, category) and on the exception still run each time.
const STATIC_FIELDS = new Set<string>(["family", "module", "function", "path", "package"]);
const SIGNATURES_MAX = 4096;

interface BuiltinCache {
  rules: StackRule[];
  /** per rule: its matchers that read state or the exception */
  dynamic: Matcher[][];
  /** per rule: its matchers on the frame's own fields */
  fixed: Matcher[][];
  bySignature: Map<string, Uint8Array>;
}

const builtinCaches = new WeakMap<StackRule, BuiltinCache>();

/** The cache for the leading built-in rules of `rules` (how grouping passes them: built-ins first). */
function builtinPrefix(rules: StackRule[]): BuiltinCache | undefined {
  let n = 0;
  while (n < rules.length && (rules[n] as StackRule).builtin) n++;
  if (n === 0) return undefined;
  const first = rules[0] as StackRule;
  const hit = builtinCaches.get(first);
  if (hit && hit.rules.length === n && hit.rules[n - 1] === rules[n - 1]) return hit;
  const prefix = rules.slice(0, n);
  const cache: BuiltinCache = {
    rules: prefix,
    dynamic: prefix.map((r) => r.matchers.filter((m) => !STATIC_FIELDS.has(m.field))),
    fixed: prefix.map((r) => r.matchers.filter((m) => STATIC_FIELDS.has(m.field))),
    bySignature: new Map(),
  };
  builtinCaches.set(first, cache);
  return cache;
}

/** A field in a frame signature; absent (or not a string) differs from empty. */
const part = (v: unknown): string => (typeof v === "string" ? v : "\u0001");

function staticMatches(cache: BuiltinCache, s: FrameState): Uint8Array {
  const f = s.rf.frame;
  const sig = `${s.rf.family}\u0000${part(f.module)}\u0000${part(f.function ?? f.raw_function)}\u0000${part(f.abs_path)}\u0000${part(f.filename)}\u0000${part(f.package)}`;
  const hit = cache.bySignature.get(sig);
  if (hit) return hit;
  const bits = new Uint8Array(cache.rules.length);
  for (let r = 0; r < bits.length; r++) bits[r] = all(cache.fixed[r] as Matcher[], s, undefined) ? 1 : 0;
  if (cache.bySignature.size >= SIGNATURES_MAX) cache.bySignature.clear();
  cache.bySignature.set(sig, bits);
  return bits;
}

function applyActions(rule: StackRule, states: FrameState[], i: number, out: StackDecision, selfOnly: boolean): void {
  for (const a of rule.actions) {
    if (a.kind === "var") {
      if (a.name === "max-frames") out.maxFrames = { value: a.value, rule };
      else if (a.name === "min-frames") out.minFrames = { value: a.value, rule };
      else if (a.name === "category" && i >= 0) (states[i] as FrameState).category = a.value;
      continue;
    }
    if (i < 0) continue;
    const targets = selfOnly || a.range === "self" ? [i] : a.range === "up" ? range(i + 1, states.length) : range(0, i);
    for (const t of targets) {
      const s = states[t] as FrameState;
      if (a.flag === "app") {
        s.inApp = a.value;
        s.appRule = rule;
      } else {
        s.group = a.value;
        s.groupRule = rule;
      }
    }
  }
}

function range(from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = from; i < to; i++) out.push(i);
  return out;
}

/** The rule as "why grouped here" names it. */
export function describeRule(rule: StackRule): string {
  return rule.builtin ? `built-in rule "${rule.text}"` : `stack trace rule line ${rule.line} "${rule.text}"`;
}
