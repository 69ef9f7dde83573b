/**
 * What v2 and v3 share once their variants are built: the hashed key with its "why grouped here"
 * lines, the fingerprint (custom or hybrid with `{{ default }}`), and the rule that a variant
 * without a stack trace steps aside for one with. v2's output must never change (its hashes are
 * stored), so anything a later version does differently stays in that version's file.
 */
import type { NormalizedEvent } from "../../event";
import { fingerprintVariable, isDefaultEntry } from "../fingerprint";
import type { GroupingKey, GroupingVariant } from "../types";

/** Separates hashed values; cannot occur in normalised SDK strings that matter. */
export const SEP = "\u001f";

export interface Variant {
  name: string;
  /** `label=value` entries, hashed in order */
  values: string[];
  /** human-readable lines for "why grouped here" */
  lines: string[];
  hasStacktrace: boolean;
  contributes: boolean;
  hint?: string;
}

export interface Strategy {
  source: string;
  variants: Variant[];
  /** the rules that changed something, named once for "why grouped here" (v3) */
  notes?: string[];
}

/** Sentry's rule: once any variant contributes a stack trace, the ones without step aside. */
export function dropVariantsWithoutStacktrace(variants: Variant[]): void {
  const withStack = variants.filter((v) => v.contributes && v.hasStacktrace);
  if (withStack.length === 0) return;
  for (const v of variants) {
    if (v.contributes && !v.hasStacktrace) {
      v.contributes = false;
      v.hint = `no contributing stack trace, but the ${withStack.map((w) => w.name).join(" and ")} variant has one`;
    }
  }
}

export function toKey(strategy: Strategy, extraLines: string[] = []): GroupingKey {
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
  components.push(...(strategy.notes ?? []), ...extraLines);
  return { source: strategy.source, components, key: variants[0]?.key ?? "", variants };
}

/**
 * A fingerprint's key: custom (the default algorithm does not contribute at all) or hybrid (every
 * default variant, further split by the other entries, in place). `resolve` renders a variable
 * entry as the version does; `defaults` is called only for a hybrid fingerprint.
 */
export function fingerprintKey(
  event: NormalizedEvent,
  fingerprint: string[],
  resolve: (entry: string, event: NormalizedEvent) => string,
  defaults: () => Strategy,
): GroupingKey {
  const hybrid = fingerprint.some(isDefaultEntry);
  const resolved = fingerprint.map((f) => (isDefaultEntry(f) ? f : resolve(f, event)));
  const shown = resolved.map((r, i) => {
    const entry = fingerprint[i] ?? "";
    if (isDefaultEntry(entry)) return entry;
    return fingerprintVariable(entry) ? `${entry}=${JSON.stringify(r)}` : JSON.stringify(r);
  });
  if (!hybrid) {
    const key = ["fingerprint", ...resolved].join(SEP);
    return {
      source: "fingerprint",
      components: [`custom-fingerprint: [${shown.join(", ")}]`],
      key,
      variants: [{ name: "custom-fingerprint", key }],
    };
  }
  const def = defaults();
  if (fingerprint.length === 1) return toKey(def);
  const variants = def.variants.map((v) => ({
    ...v,
    values: resolved.flatMap((r) => (isDefaultEntry(r) ? v.values : [`fingerprint=${r}`])),
  }));
  return toKey({ source: `${def.source}+fingerprint`, variants, notes: def.notes }, [`fingerprint: [${shown.join(", ")}]`]);
}
