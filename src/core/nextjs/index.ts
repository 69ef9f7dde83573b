/**
 * The Next.js rules applied to every event between normalisation and grouping:
 *   digest     → indexed (`events.digest`) and kept on the event (`errata.digest`)
 *   deploy skew → tag `errata.class=deploy-skew`, issue flag, grouped per release
 *   minified React error → decoded (`errata.react`), title shows the message, grouped by code
 *   browser mirror of a server error → grouped by its digest
 * A fingerprint the SDK sent always wins: the rules only set one when there is none.
 */
import type { ErrataMeta, NormalizedEvent } from "../event";
import type { IssueDescription } from "../grouping/index";
import { classifyDeploySkew, type EventClass } from "./deploy-skew";
import { type DigestInfo, type DigestSide, digestSide, extractDigest, isServerComponentsMirror, SERVER_COMPONENTS_MIRROR } from "./digest";
import { decodeReactError, type ReactErrorInfo } from "./react-errors";

export { classifyDeploySkew, type EventClass } from "./deploy-skew";
export {
  type DigestInfo,
  type DigestSide,
  digestSide,
  extractDigest,
  isReservedDigest,
  isServerComponentsMirror,
  parseDigest,
  pastedDigest,
} from "./digest";
export { decodeReactError, type ReactErrorInfo, reactErrorTemplate } from "./react-errors";

/** The tag Errata adds to classified events. */
export const CLASS_TAG = "errata.class";

/** What the rules found; also stored on the event under `errata` (see `NextjsMeta`). */
export interface NextjsAnnotations {
  digest: (DigestInfo & { side: DigestSide }) | null;
  classification: EventClass | null;
  /** the decoded React error of the main exception (or the first decoded one in the chain) */
  react: (ReactErrorInfo & { exceptionIndex: number }) | null;
  /** the fingerprint the rules chose, when the SDK sent none */
  fingerprint: string[] | null;
}

/** Errata's Next.js fields inside `event.errata` (ErrataMeta stays open for them). */
export interface NextjsMeta {
  digest?: { value: string; key: string; source: string; side: DigestSide };
  react?: { code: number; message: string | null; args: string[] };
  classification?: EventClass;
}

export function nextjsMetaOf(event: { errata?: unknown }): NextjsMeta {
  return (event.errata ?? {}) as NextjsMeta;
}

/** Applies the rules to a normalised event in place (before grouping) and returns what it found. */
export function annotateNextjs(event: NormalizedEvent): NextjsAnnotations {
  const errata = event.errata as ErrataMeta & NextjsMeta;
  const found = extractDigest(event);
  const digest = found ? { ...found, side: digestSide(event) } : null;
  const classification = classifyDeploySkew(event);
  const react = findReactError(event);

  if (digest) errata.digest = digest;
  if (react) errata.react = { code: react.code, message: react.message, args: react.args };
  if (classification) {
    errata.classification = classification;
    const tags = event.tags ?? [];
    if (!tags.some(([k, v]) => k === CLASS_TAG && v === classification)) event.tags = [...tags, [CLASS_TAG, classification]];
  }

  const fingerprint = hasCustomFingerprint(event) ? null : chooseFingerprint(event, digest, classification, react);
  if (fingerprint) {
    event.fingerprint = fingerprint;
    errata.notes.push({ type: "nextjs_grouping", path: "fingerprint", detail: groupingNote(fingerprint) });
  }
  return { digest, classification, react, fingerprint };
}

/** A fingerprint of `{{ default }}` alone (some SDK setups send it) asks for nothing custom. */
function hasCustomFingerprint(event: NormalizedEvent): boolean {
  return (event.fingerprint ?? []).some((f) => !/^\{\{\s*default\s*\}\}$/i.test(f));
}

function chooseFingerprint(
  event: NormalizedEvent,
  digest: NextjsAnnotations["digest"],
  classification: EventClass | null,
  react: NextjsAnnotations["react"],
): string[] | null {
  // The mirror is also React error #441: the digest check must come first.
  if (digest && isServerComponentsMirror(event)) return ["nextjs-server-component-render", digest.key];
  if (classification === "deploy-skew") return ["deploy-skew", event.release ?? "<no release>"];
  if (react) return ["react-error", String(react.code)];
  return null;
}

function groupingNote(fingerprint: string[]): string {
  const [rule, value] = fingerprint;
  if (rule === "nextjs-server-component-render")
    return `Grouped by its Next.js digest ${value}: the browser only sees Next's redacted message.`;
  if (rule === "deploy-skew") return `Grouped as deploy skew per release (${value}), not per chunk URL.`;
  return `Grouped by React error code #${value}.`;
}

/** The decoded React error of the main exception, else the first one in the chain. */
function findReactError(event: NormalizedEvent): NextjsAnnotations["react"] {
  const values = event.exception?.values ?? [];
  const main = values.length - 1;
  const order = [main, ...values.keys()].filter((i, n, all) => i >= 0 && all.indexOf(i) === n);
  for (const i of order) {
    const decoded = decodeReactError(values[i]?.value);
    if (decoded) return { ...decoded, exceptionIndex: i };
  }
  const message = event.logentry?.formatted ?? event.logentry?.message;
  const decoded = typeof message === "string" ? decodeReactError(message) : null;
  return decoded ? { ...decoded, exceptionIndex: -1 } : null;
}

/**
 * The issue/event description with Next.js knowledge: a minified React error is titled with its
 * decoded message, the browser mirror of a server error names its digest, and a deploy-skew issue
 * names its release.
 */
export function describeWithNextjs<T extends IssueDescription>(description: T, event: NormalizedEvent, a: NextjsAnnotations): T {
  const values = event.exception?.values ?? [];
  const type = description.metadata.type ?? values.at(-1)?.type ?? "Error";
  if (a.digest && isServerComponentsMirror(event)) {
    const value = `${SERVER_COMPONENTS_MIRROR.slice(0, -1)} (digest ${a.digest.value})`;
    return { ...description, title: cut(`${type}: ${value}`), metadata: { ...description.metadata, value, digest: a.digest.value } };
  }
  if (a.fingerprint?.[0] === "deploy-skew") {
    // One issue holds every chunk failure of a release: say so before the first one's text.
    return { ...description, title: cut(`Deploy skew (${a.fingerprint[1]}): ${description.title}`) };
  }
  const react = a.react;
  if (!react?.message) return description;
  const value = firstLine(react.message);
  // Only the reported (last) exception names the issue; a React error deeper in the chain does not.
  if (values.length > 0 && react.exceptionIndex === values.length - 1) {
    return { ...description, title: cut(`${type}: ${value}`), metadata: { ...description.metadata, value, react_error: react.code } };
  }
  if (values.length === 0)
    return { ...description, title: cut(value), metadata: { ...description.metadata, title: value, react_error: react.code } };
  return description;
}

/** Same limit as grouping's titles (200 characters, by code point). */
const TITLE_MAX = 200;

function cut(s: string): string {
  const chars = Array.from(s);
  return chars.length <= TITLE_MAX ? s : `${chars.slice(0, TITLE_MAX - 1).join("")}…`;
}

function firstLine(s: string): string {
  return (s.split(/\r?\n/, 1)[0] ?? "").trim();
}
