/**
 * What every grouping version shares: the main exception, the crash frame, the issue's title,
 * culprit, type and metadata. Grouping versions differ in their *key*, not in how an issue is
 * described, so these live apart from `v1.ts`.
 */
import type { ExceptionValue, Frame, NormalizedEvent, Stacktrace } from "../event";

export const TITLE_MAX = 200;
export const CULPRIT_MAX = 200;

export interface IssueMetadata {
  type?: string;
  value?: string;
  filename?: string;
  function?: string;
  /** for message events */
  title?: string;
  [key: string]: unknown;
}

export interface IssueDescription {
  title: string;
  culprit: string;
  type: "error" | "default";
  metadata: IssueMetadata;
}

/** The exception that was actually reported: the *last* element (earlier ones are its causes). */
export function mainException(event: NormalizedEvent): ExceptionValue | undefined {
  const values = event.exception?.values;
  return values && values.length > 0 ? values[values.length - 1] : undefined;
}

export function firstLine(s: string): string {
  const line = s.split(/\r?\n/, 1)[0] ?? "";
  return line.trim();
}

export function cut(s: string, max: number): string {
  const chars = Array.from(s);
  return chars.length <= max ? s : `${chars.slice(0, max - 1).join("")}…`;
}

/** The stack trace that crashed: the main exception's, else the crashed thread's, else the event's. */
export function crashStacktrace(event: NormalizedEvent): Stacktrace | undefined {
  const exc = mainException(event);
  if (exc?.stacktrace && exc.stacktrace.frames.length > 0) return exc.stacktrace;
  const threads = event.threads?.values ?? [];
  const crashed = threads.find((t) => t.crashed === true && t.stacktrace && t.stacktrace.frames.length > 0);
  if (crashed?.stacktrace) return crashed.stacktrace;
  const own = event.stacktrace as Stacktrace | undefined;
  if (own && typeof own === "object" && Array.isArray(own.frames) && own.frames.length > 0) return own;
  return undefined;
}

/** The frame that crashed: the last in-app frame if any, else the last frame. */
export function crashFrame(event: NormalizedEvent): Frame | undefined {
  const frames = crashStacktrace(event)?.frames;
  if (!frames || frames.length === 0) return undefined;
  for (let i = frames.length - 1; i >= 0; i--) if (frames[i]?.in_app === true) return frames[i];
  return frames[frames.length - 1];
}

export function frameFunction(frame: Frame | undefined): string | undefined {
  const fn = frame?.function ?? frame?.raw_function;
  return fn && fn !== "?" ? fn : undefined;
}

/** The message line for message events: formatted text first (it is what people read). */
export function messageText(event: NormalizedEvent): string | undefined {
  const e = event.logentry;
  const text = e?.formatted ?? e?.message;
  if (typeof text !== "string") return undefined;
  const line = firstLine(text);
  return line === "" ? undefined : line;
}

/** `type` of the main exception as shown; synthetic types (signal names…) use the crash function. */
export function exceptionType(exc: ExceptionValue, event: NormalizedEvent): string {
  if (exc.mechanism?.synthetic === true) {
    const fn = frameFunction(crashFrame(event));
    if (fn) return fn;
  }
  return exc.type ?? "Error";
}

function culpritOf(event: NormalizedEvent): string {
  if (event.transaction) return cut(event.transaction, CULPRIT_MAX);
  const frame = crashFrame(event);
  if (frame) {
    const fn = frameFunction(frame);
    const where = frame.filename ?? frame.module ?? frame.abs_path;
    const text = fn && where ? `${fn} (${where})` : (fn ?? where ?? "");
    if (text) return cut(text, CULPRIT_MAX);
  }
  // Old SDKs send their own culprit; better than nothing.
  return typeof event.culprit === "string" ? cut(event.culprit, CULPRIT_MAX) : "";
}

/**
 * SDK 11's `captureMessage` with a stack trace: one synthetic exception without a type whose value
 * is the message. It is a message with a stack, not an error (titled "Error: …" it read as one).
 */
export function isMessageStandIn(event: NormalizedEvent): boolean {
  const values = event.exception?.values;
  if (values?.length !== 1) return false;
  const exc = values[0] as ExceptionValue;
  if (exc.type || exc.mechanism?.synthetic !== true) return false;
  const message = messageText(event);
  return message === undefined || exc.value === undefined || firstLine(exc.value) === message;
}

export function describeEvent(event: NormalizedEvent): IssueDescription {
  const culprit = culpritOf(event);
  const exc = isMessageStandIn(event) ? undefined : mainException(event);
  if (exc) {
    const type = exceptionType(exc, event);
    const value = exc.value !== undefined ? firstLine(exc.value) : "";
    const frame = crashFrame(event);
    const metadata: IssueMetadata = { type, value };
    if (frame?.filename) metadata.filename = frame.filename;
    const fn = frameFunction(frame);
    if (fn) metadata.function = fn;
    return { title: cut(value ? `${type}: ${value}` : type, TITLE_MAX), culprit, type: "error", metadata };
  }
  const standIn = mainException(event)?.value;
  const title = cut(messageText(event) ?? ((standIn ? firstLine(standIn) : "") || "<unlabeled event>"), TITLE_MAX);
  return { title, culprit, type: "default", metadata: { title } };
}
