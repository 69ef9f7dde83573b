import type { NormalizedEvent } from "../event";
import type { IssueDescription } from "./describe";
import type { FingerprintRule } from "./rules/fingerprint-rules";
import type { StackRule } from "./rules/stack-rules";

/** One way of hashing an event (v2: `app`, `system`, `custom-fingerprint`, `message`, …). */
export interface GroupingVariant {
  name: string;
  /** the contributing values, serialised; what gets hashed */
  key: string;
}

/** The strings that decide the issue, and where they came from (shown as "why grouped here"). */
export interface GroupingKey {
  /** `exception`, `stacktrace`, `threads`, `message`, `fallback`, `fingerprint` or `<default>+fingerprint` */
  source: string;
  components: string[];
  /** the primary key (the first variant's) */
  key: string;
  /**
   * Every contributing variant (v2+). The event joins an issue owning ANY of their hashes.
   * Absent for single-key versions (v1): the key alone.
   */
  variants?: GroupingVariant[];
}

export interface GroupingResult extends IssueDescription {
  version: string;
  /** Every hash this event matches, primary first; an existing issue with any of them takes the event. */
  hashes: string[];
  source: string;
  components: string[];
  /** variant name per hash (same order as `hashes`; v1: `["default"]`) */
  variants: string[];
  /**
   * During a grouping transition: the previous version's hashes. An issue owning any of them
   * also takes the event (and then learns `hashes`), so switching versions splits nothing.
   */
  previous?: { version: string; hashes: string[] };
}

/** Hex digest of a string (sha256 in production); injected so core stays free of node:crypto. */
export type HashFn = (input: string) => string;

/** What a project adds to its grouping version (v3+ reads it; older versions ignore it). */
export interface GroupingContext {
  /** the project's stack-trace rules, run after the built-in ones */
  stackRules?: StackRule[];
}

export interface GroupingAlgorithm {
  version: string;
  key(event: NormalizedEvent, ctx?: GroupingContext): GroupingKey;
  /** whether the project's stack-trace rules apply (they need v3's rule engine) */
  stackRules?: boolean;
  /** fingerprint rules every project gets with this version (after its own) */
  builtinFingerprints?: FingerprintRule[];
}
