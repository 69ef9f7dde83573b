/**
 * Fingerprint rules in Sentry's syntax ("Fingerprint Rules" / `fingerprintingRules`):
 *
 *   error.type:DatabaseUnavailable error.value:"*timeout*" -> database-down, {{ transaction }} title="DB down"
 *
 * Matchers: `error.type`/`type`, `error.value`/`value`, `message`, `logger`, `level`,
 * `stack.function`/`function`, `stack.module`/`module`, `stack.abs_path`/`path`,
 * `stack.package`/`package`, `family`, `app`, `sdk`, `release`, `tags.<key>`; `!` negates. Frame
 * matchers hold when any frame of any stack trace matches. The first matching rule wins and
 * replaces the SDK's fingerprint; its values may use `{{ default }}` and the other variables.
 */
import type { Frame, NormalizedEvent } from "../../event";
import { compileGlob, type GlobMatch, normalizePath } from "./glob";
import { framePaths } from "./stack-rules";
import { type RuleError, RuleSyntaxError, ruleLines, splitMatcher, type Token, tokenize } from "./syntax";

type Field =
  | "type"
  | "value"
  | "message"
  | "logger"
  | "level"
  | "function"
  | "module"
  | "path"
  | "package"
  | "family"
  | "app"
  | "sdk"
  | "release"
  | "tag";

const ALIASES: Record<string, Field> = {
  type: "type",
  "error.type": "type",
  value: "value",
  "error.value": "value",
  message: "message",
  logger: "logger",
  level: "level",
  function: "function",
  "stack.function": "function",
  module: "module",
  "stack.module": "module",
  path: "path",
  "stack.abs_path": "path",
  package: "package",
  "stack.package": "package",
  family: "family",
  app: "app",
  "stack.app": "app",
  sdk: "sdk",
  release: "release",
};

type EventTest = (view: EventView) => boolean;

export interface FingerprintRule {
  line: number;
  text: string;
  builtin: boolean;
  tests: EventTest[];
  fingerprint: string[];
  title?: string;
}

export interface ParsedFingerprintRules {
  rules: FingerprintRule[];
  errors: RuleError[];
}

const JS = new Set(["javascript", "node"]);
const NATIVE = new Set(["native", "cocoa", "objc", "swift", "c"]);
const familyOf = (p: string | undefined) => (p && JS.has(p) ? "javascript" : p && NATIVE.has(p) ? "native" : "other");

/** The values matchers read, gathered on first use (most events fail the first matcher). */
export class EventView {
  private _types?: string[];
  private _values?: string[];
  private _messages?: string[];
  private _frames?: Frame[];
  private _frameFamilies?: string[];
  readonly family: string;

  constructor(readonly event: NormalizedEvent) {
    this.family = familyOf(event.platform);
  }

  get types(): string[] {
    this._types ??= (this.event.exception?.values ?? []).flatMap((e) => (e.type ? [e.type] : []));
    return this._types;
  }

  get values(): string[] {
    this._values ??= (this.event.exception?.values ?? []).flatMap((e) => (e.value ? [e.value] : []));
    return this._values;
  }

  /** The log message (formatted and template) and, as in Sentry, the exception values. */
  get messages(): string[] {
    if (!this._messages) {
      const out: string[] = [];
      const lf = this.event.logentry?.formatted;
      const lm = this.event.logentry?.message;
      if (typeof lf === "string") out.push(lf);
      if (typeof lm === "string" && lm !== lf) out.push(lm);
      out.push(...this.values);
      this._messages = out;
    }
    return this._messages;
  }

  get frames(): Frame[] {
    if (!this._frames) {
      const out: Frame[] = [];
      for (const exc of this.event.exception?.values ?? []) for (const f of exc.stacktrace?.frames ?? []) out.push(f);
      for (const t of this.event.threads?.values ?? []) for (const f of t.stacktrace?.frames ?? []) out.push(f);
      const st = this.event.stacktrace as { frames?: unknown } | undefined;
      if (st && Array.isArray(st.frames)) for (const f of st.frames as Frame[]) out.push(f);
      this._frames = out;
    }
    return this._frames;
  }

  get frameFamilies(): string[] {
    this._frameFamilies ??= this.frames.map((f) => familyOf(typeof f.platform === "string" ? f.platform : this.event.platform));
    return this._frameFamilies;
  }
}

export function eventView(event: NormalizedEvent): EventView {
  return new EventView(event);
}

const APP: Record<string, boolean> = { yes: true, true: true, "1": true, no: false, false: false, "0": false };

function anyOf(list: string[], g: GlobMatch): boolean {
  for (const v of list) if (g(v)) return true;
  return false;
}

function tagOf(event: NormalizedEvent, key: string): string | undefined {
  for (const [k, v] of event.tags ?? []) if (k === key) return v;
  return undefined;
}

function compile(key: string, value: string): EventTest {
  if (value === "") throw new RuleSyntaxError(`"${key}:" needs a value`);
  if (key.startsWith("tags.")) {
    const tag = key.slice(5);
    if (tag === "") throw new RuleSyntaxError('"tags." needs a tag name, such as tags.server_name');
    const g = compileGlob(value, false);
    return (v) => {
      const t = tagOf(v.event, tag) ?? (tag === "transaction" ? v.event.transaction : undefined);
      return typeof t === "string" && g(t);
    };
  }
  const field = ALIASES[key];
  if (!field) throw new RuleSyntaxError(`unknown matcher "${key}"`);
  switch (field) {
    case "type": {
      const g = compileGlob(value, false);
      return (v) => anyOf(v.types, g);
    }
    case "value": {
      const g = compileGlob(value.toLowerCase(), false);
      return (v) => v.values.some((x) => g(x.toLowerCase()));
    }
    case "message": {
      const g = compileGlob(value.toLowerCase(), false);
      return (v) => v.messages.some((x) => g(x.toLowerCase()));
    }
    case "logger":
    case "level":
    case "release": {
      const g = compileGlob(value, false);
      return (v) => {
        const x = v.event[field];
        return typeof x === "string" && g(x);
      };
    }
    case "sdk": {
      const g = compileGlob(value, false);
      return (v) => {
        const name = (v.event.sdk as { name?: unknown } | undefined)?.name;
        return typeof name === "string" && g(name);
      };
    }
    case "family": {
      const wanted = value.split(",").map((s) => s.trim());
      return (v) => wanted.includes("all") || wanted.includes(v.family) || v.frameFamilies.some((f) => wanted.includes(f));
    }
    case "app": {
      const want = APP[value.toLowerCase()];
      if (want === undefined) throw new RuleSyntaxError(`"app:" takes yes or no, not "${value}"`);
      return (v) => v.frames.some((f) => (f.in_app === true) === want);
    }
    case "function": {
      const g = compileGlob(value, false);
      return (v) => v.frames.some((f) => typeof f.function === "string" && g(f.function));
    }
    case "module": {
      const g = compileGlob(value, false);
      return (v) => v.frames.some((f) => typeof f.module === "string" && g(f.module));
    }
    case "package": {
      const g = compileGlob(value, true);
      return (v) => v.frames.some((f) => typeof f.package === "string" && g(normalizePath(f.package)));
    }
    case "path": {
      const g = compileGlob(value, true);
      return (v) => v.frames.some((f) => framePaths(f).some(g));
    }
    case "tag":
      throw new RuleSyntaxError("unreachable");
  }
}

export function parseFingerprintRule(text: string, line: number, builtin = false): FingerprintRule {
  const tokens = tokenize(text, true);
  const arrow = tokens.findIndex((t) => t.kind === "punct" && t.text === "->");
  if (arrow === -1) throw new RuleSyntaxError('a fingerprint rule needs "->" between its matchers and its fingerprint');
  const tests: EventTest[] = [];
  for (const t of tokens.slice(0, arrow)) {
    if (t.kind === "punct") throw new RuleSyntaxError(`unexpected "${t.text}" before "->"`);
    const m = splitMatcher(t.text);
    if (!m) throw new RuleSyntaxError(`"${t.text}" is not a matcher (key:value)`);
    const test = compile(m.key, m.value);
    tests.push(m.negated ? (v) => !test(v) : test);
  }
  if (tests.length === 0) throw new RuleSyntaxError('a rule needs at least one matcher before "->"');
  const fingerprint: string[] = [];
  let title: string | undefined;
  let expectValue = true;
  // `{{ default }}` written with spaces arrives as several words: gather them into one value.
  let open: string[] | undefined;
  for (const t of tokens.slice(arrow + 1) as Token[]) {
    if (open) {
      if (t.kind === "punct") throw new RuleSyntaxError('"{{" without a closing "}}"');
      open.push(t.text);
      if (t.text.endsWith("}}")) {
        fingerprint.push(open.join(" "));
        open = undefined;
      }
      continue;
    }
    if (t.kind === "punct") {
      if (t.text !== ",") throw new RuleSyntaxError(`unexpected "${t.text}" in the fingerprint`);
      expectValue = true;
      continue;
    }
    const attr = !t.quoted && /^(\w+)=(.*)$/s.exec(t.text);
    if (attr) {
      if (attr[1] !== "title") throw new RuleSyntaxError(`unknown attribute "${attr[1]}" (only title="…")`);
      title = attr[2];
      expectValue = false;
      continue;
    }
    if (!expectValue) throw new RuleSyntaxError("separate fingerprint values with commas");
    expectValue = false;
    if (!t.quoted && t.text.startsWith("{{") && !t.text.endsWith("}}")) open = [t.text];
    else fingerprint.push(t.text);
  }
  if (open) throw new RuleSyntaxError('"{{" without a closing "}}"');
  const joined = fingerprint;
  if (joined.length === 0) throw new RuleSyntaxError('the fingerprint after "->" is empty');
  return { line, text, builtin, tests, fingerprint: joined, title };
}

export function parseFingerprintRules(text: string, builtin = false): ParsedFingerprintRules {
  const rules: FingerprintRule[] = [];
  const errors: RuleError[] = [];
  for (const { line, text: t } of ruleLines(text)) {
    try {
      rules.push(parseFingerprintRule(t, line, builtin));
    } catch (err) {
      if (!(err instanceof RuleSyntaxError)) throw err;
      errors.push({ line, message: err.message });
    }
  }
  return { rules, errors };
}

/** The first rule of `lists` (in order) that matches the event. */
export function matchFingerprintRules(lists: FingerprintRule[][], event: NormalizedEvent): FingerprintRule | undefined {
  let view: EventView | undefined;
  for (const rules of lists) {
    for (const rule of rules) {
      view ??= eventView(event);
      const v = view;
      let ok = true;
      for (let i = 0; ok && i < rule.tests.length; i++) ok = (rule.tests[i] as EventTest)(v);
      if (ok) return rule;
    }
  }
  return undefined;
}

export function describeFingerprintRule(rule: FingerprintRule): string {
  return rule.builtin ? `built-in fingerprint rule "${rule.text}"` : `fingerprint rule line ${rule.line} "${rule.text}"`;
}
