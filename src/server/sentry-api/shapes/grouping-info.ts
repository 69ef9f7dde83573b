/**
 * Sentry's grouping info of an event (`GET /api/0/projects/{org}/{project}/events/{id}/grouping-info/`):
 * one entry per variant keyed by its name, with its hash, whether it contributes, why not, and the
 * values that went into it — built from the "why grouped here" lines the digest stored on the event
 * (`errata.grouping`), never recomputed, so it always tells how the event was grouped.
 */
import type { ErrataMeta } from "../../../core/event";

type Grouping = NonNullable<ErrataMeta["grouping"]>;

export interface SentryGroupingVariant {
  key: string;
  type: "component" | "custom_fingerprint";
  description: string;
  hash: string | null;
  hashMismatch: false;
  contributes: boolean;
  hint: string | null;
  config: { id: string };
  component: { id: string; name: null; contributes: boolean; hint: string | null; values: string[] };
}

const DESCRIPTIONS: Record<string, string> = {
  exception: "exception",
  threads: "thread stacktrace",
  stacktrace: "event-level stacktrace",
  message: "message",
  fallback: "fallback grouping",
  fingerprint: "custom fingerprint",
};

function describe(source: string, variant: string): string {
  const [base = source, hybrid] = source.split("+");
  const parts = [DESCRIPTIONS[base] ?? base];
  if (variant === "app") parts.push("— in-app frames");
  if (variant === "system") parts.push("— all frames");
  if (hybrid) parts.push("and custom fingerprint");
  return parts.join(" ");
}

/** The stored grouping → Sentry's shape; lines that belong to no variant (rule notes) go to every variant. */
export function sentryGroupingInfo(g: Grouping | undefined): Record<string, SentryGroupingVariant> {
  if (!g) return {};
  const names = g.variants ?? ["default"];
  const hashes = g.hashes ?? [g.hash];
  const lines = new Map<string, string[]>();
  const notUsed = new Map<string, string>();
  const shared: string[] = [];
  for (const line of g.components) {
    const m = /^([\w-]+): (.*)$/s.exec(line);
    const name = m?.[1];
    const rest = m?.[2] ?? line;
    const off = /^not used \((.*)\)$/s.exec(rest);
    if (name && off) notUsed.set(name, off[1] ?? "");
    else if (name && (names.includes(name) || name === "custom-fingerprint")) lines.set(name, [...(lines.get(name) ?? []), rest]);
    else shared.push(line);
  }
  const out: Record<string, SentryGroupingVariant> = {};
  const entry = (name: string, hash: string | null, hint: string | null): SentryGroupingVariant => {
    const custom = name === "custom-fingerprint";
    const key = name.replace(/-/g, "_");
    const contributes = hash !== null;
    return {
      key,
      type: custom ? "custom_fingerprint" : "component",
      description: custom ? "custom fingerprint" : describe(g.source, name),
      hash,
      hashMismatch: false,
      contributes,
      hint,
      config: { id: g.version },
      component: { id: key, name: null, contributes, hint, values: [...(lines.get(name) ?? []), ...shared] },
    };
  };
  names.forEach((name, i) => {
    out[name.replace(/-/g, "_")] = entry(name, hashes[i] ?? null, null);
  });
  for (const [name, hint] of notUsed) out[name.replace(/-/g, "_")] ??= entry(name, null, hint);
  return out;
}
