/**
 * Versioned grouping registry. A project records its grouping version; a new version is added
 * here (never edited in place) so stored hashes keep their meaning.
 */
import type { NormalizedEvent } from "../event";
import { describeEvent } from "./describe";
import { resolveFingerprintEntry } from "./fingerprint";
import { BUILTIN_FINGERPRINT_RULES } from "./rules/builtin";
import { describeFingerprintRule, type FingerprintRule, matchFingerprintRules, parseFingerprintRules } from "./rules/fingerprint-rules";
import { parseStackRules, type StackRule } from "./rules/stack-rules";
import { groupingKeyV1 } from "./strategies/v1";
import { groupingKeyV2 } from "./strategies/v2";
import { groupingKeyV3 } from "./strategies/v3";
import type { GroupingAlgorithm, GroupingResult, HashFn } from "./types";

export type { IssueDescription, IssueMetadata } from "./describe";
export { describeEvent } from "./describe";
export { normalizeMessageForGrouping, parameterize } from "./parameterize";
export { parseFingerprintRules } from "./rules/fingerprint-rules";
export { parseStackRules } from "./rules/stack-rules";
export type { RuleError } from "./rules/syntax";
export type { GroupingAlgorithm, GroupingContext, GroupingKey, GroupingResult, GroupingVariant, HashFn } from "./types";

export const GROUPING_VERSIONS: Readonly<Record<string, GroupingAlgorithm>> = {
  v1: { version: "v1", key: groupingKeyV1 },
  v2: { version: "v2", key: groupingKeyV2 },
  v3: { version: "v3", key: groupingKeyV3, stackRules: true, builtinFingerprints: BUILTIN_FINGERPRINT_RULES },
};

/**
 * Sentry's grouping config names (a project's `groupingConfig`) and the Errata version that does
 * what each does: legacy is the simple key, the 2019 newstyle configs are v2, the 2023 newstyle
 * (Sentry's default) and the mobile config add the per-platform frame cleaning that v3 has.
 */
const SENTRY_GROUPING_CONFIGS: Readonly<Record<string, string>> = {
  "legacy:2019-03-12": "v1",
  "newstyle:2019-05-08": "v2",
  "newstyle:2019-10-29": "v2",
  "newstyle:2023-01-11": "v3",
  "mobile:2021-02-12": "v3",
};

/** The Errata grouping version a config name means (Errata's own names or Sentry's), or undefined. */
export function groupingVersionNamed(name: string): string | undefined {
  if (Object.hasOwn(GROUPING_VERSIONS, name)) return name;
  return SENTRY_GROUPING_CONFIGS[name];
}

/** Every name `groupingVersionNamed` accepts, for the refusal's message. */
export const GROUPING_CONFIG_NAMES: readonly string[] = [...Object.keys(GROUPING_VERSIONS), ...Object.keys(SENTRY_GROUPING_CONFIGS)];

/**
 * The version NEW projects get; existing projects keep the one they recorded (switching is the
 * settings page's job, with the transition period below). v3's built-in fingerprints yield to
 * any fingerprint already on the event, so the Next.js rules (deploy skew per release, React
 * errors by code) keep deciding for Next.js events.
 */
export const DEFAULT_GROUPING_VERSION = "v3";

/** A project's own grouping rules (Sentry's `fingerprintingRules` and `groupingEnhancements`), parsed. */
export interface ProjectGroupingRules {
  fingerprint: FingerprintRule[];
  stack: StackRule[];
}

export const NO_GROUPING_RULES: ProjectGroupingRules = { fingerprint: [], stack: [] };

/** Parses stored rule texts; lines that do not parse are left out (they were refused on save). */
export function compileGroupingRules(fingerprintingRules: string, groupingEnhancements: string): ProjectGroupingRules {
  if (fingerprintingRules.trim() === "" && groupingEnhancements.trim() === "") return NO_GROUPING_RULES;
  return { fingerprint: parseFingerprintRules(fingerprintingRules).rules, stack: parseStackRules(groupingEnhancements).rules };
}

/** The rule texts stored in a project's settings JSON (Sentry's project option names). */
export function groupingRuleTexts(settings: Record<string, unknown>): { fingerprintingRules: string; groupingEnhancements: string } {
  const text = (v: unknown) => (typeof v === "string" ? v : "");
  return { fingerprintingRules: text(settings.fingerprintingRules), groupingEnhancements: text(settings.groupingEnhancements) };
}

// Parsed rules by their text: the digest reads settings once per batch, parsing once per change.
const compiled = new Map<string, ProjectGroupingRules>();
const COMPILED_MAX = 512;

/** A project's parsed rules from its settings JSON, memoised by text. */
export function groupingRulesOf(settings: Record<string, unknown>): ProjectGroupingRules {
  const t = groupingRuleTexts(settings);
  if (t.fingerprintingRules === "" && t.groupingEnhancements === "") return NO_GROUPING_RULES;
  const key = `${t.fingerprintingRules}\u0000${t.groupingEnhancements}`;
  const hit = compiled.get(key);
  if (hit) return hit;
  const rules = compileGroupingRules(t.fingerprintingRules, t.groupingEnhancements);
  if (compiled.size >= COMPILED_MAX) compiled.delete(compiled.keys().next().value as string);
  compiled.set(key, rules);
  return rules;
}

/** Expands `{{ var }}` in a fingerprint rule's title. */
function expandTitle(template: string, event: NormalizedEvent): string {
  return template.replace(/\{\{\s*([^}]+?)\s*\}\}/g, (_m, name: string) =>
    resolveFingerprintEntry(`{{ ${name} }}`, event, { messageFromException: true }),
  );
}

/** How long after a project switches versions the previous version's hashes still match. */
export const DEFAULT_GROUPING_TRANSITION_DAYS = 30;

/** Orders versions (`v1` < `v2` < `v10`); unknown shapes compare as strings. */
export function compareGroupingVersions(a: string, b: string): number {
  const na = /^v(\d+)$/.exec(a)?.[1];
  const nb = /^v(\d+)$/.exec(b)?.[1];
  if (na !== undefined && nb !== undefined) return Number(na) - Number(nb);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Does the event carry a fingerprint of its own (anything beyond `{{ default }}`)? */
function hasCustomFingerprint(event: NormalizedEvent): boolean {
  for (const f of event.fingerprint ?? []) if (!/^\{\{\s*default\s*\}\}$/i.test(f)) return true;
  return false;
}

/** Groups an event with the given version (unknown versions fall back to the default). */
export function groupEvent(
  event: NormalizedEvent,
  version: string,
  hash: HashFn,
  rules: ProjectGroupingRules = NO_GROUPING_RULES,
): GroupingResult {
  const algo = GROUPING_VERSIONS[version] ?? (GROUPING_VERSIONS[DEFAULT_GROUPING_VERSION] as GroupingAlgorithm);
  // Server-side fingerprint rules replace what the SDK sent (v2+; the project's rules first). The
  // built-in ones only fill in for a default fingerprint: one the SDK sent, or one Errata's Next.js
  // rules chose (deploy skew per release, React errors by code), says more than a catch-all
  // `chunkloaderror`, so it wins (Sentry lets its built-ins override even the SDK's).
  const builtin = algo.builtinFingerprints && !hasCustomFingerprint(event) ? algo.builtinFingerprints : undefined;
  const lists = algo.version === "v1" ? [] : builtin ? [rules.fingerprint, builtin] : [rules.fingerprint];
  const matched = lists.some((l) => l.length > 0) ? matchFingerprintRules(lists, event) : undefined;
  const grouped = matched ? { ...event, fingerprint: matched.fingerprint } : event;
  const keyed = algo.key(grouped, algo.stackRules ? { stackRules: rules.stack } : undefined);
  const { key, source, variants } = keyed;
  const components = matched ? [...keyed.components, `rule: fingerprint set by ${describeFingerprintRule(matched)}`] : keyed.components;
  // The version prefix keeps hashes of different versions from ever colliding.
  const hashes: string[] = [];
  const names: string[] = [];
  for (const v of variants ?? [{ name: "default", key }]) {
    const h = hash(`${algo.version}\u0000${v.key}`);
    if (hashes.includes(h)) continue;
    hashes.push(h);
    names.push(v.name);
  }
  const described = describeEvent(event);
  if (matched?.title) described.title = expandTitle(matched.title, event);
  return { ...described, version: algo.version, hashes, source, components, variants: names };
}

/** A project's grouping settings as stored (`projects.grouping_*`). */
export interface ProjectGrouping {
  version: string;
  /** the version before the last switch */
  previous?: string | null;
  /** epoch ms of the last switch */
  switchedAt?: number | null;
  /** how long the previous version keeps matching (default 30 days) */
  transitionDays?: number;
}

/** True while `at` (epoch ms) is within the transition period after a version switch. */
export function inGroupingTransition(g: ProjectGrouping, at: number): boolean {
  if (!g.previous || g.previous === g.version || g.switchedAt === null || g.switchedAt === undefined) return false;
  const days = g.transitionDays ?? DEFAULT_GROUPING_TRANSITION_DAYS;
  return at < g.switchedAt + days * 86_400_000;
}

/**
 * Groups an event for a project: with its version, and during a transition also with the previous
 * version (`result.previous`). `at` is the event's receive time (epoch ms), so a retried batch
 * decides the same way.
 */
export function groupEventForProject(
  event: NormalizedEvent,
  g: ProjectGrouping,
  at: number,
  hash: HashFn,
  rules: ProjectGroupingRules = NO_GROUPING_RULES,
): GroupingResult {
  const result = groupEvent(event, g.version, hash, rules);
  if (!inGroupingTransition(g, at)) return result;
  const prev = groupEvent(event, g.previous as string, hash, rules);
  if (prev.version !== result.version) result.previous = { version: prev.version, hashes: prev.hashes };
  return result;
}
