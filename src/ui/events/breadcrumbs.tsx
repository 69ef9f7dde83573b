"use client";

import { useState } from "react";
import { absoluteTime, clockTime } from "../kit/format";
import { LevelDot } from "../kit/level";
import { ScrollRegion } from "../kit/scroll-region";
import type { CrumbView } from "./model";

/** Breadcrumbs, newest first: time · category · level · message and data; filtered by level and category. */
export function Breadcrumbs({ crumbs: all }: { crumbs: CrumbView[] }) {
  const [level, setLevel] = useState("");
  const [category, setCategory] = useState("");
  if (all.length === 0) return <p className="text-fg-dim">No breadcrumbs.</p>;
  const levels = [...new Set(all.map((c) => c.level ?? "").filter(Boolean))].sort();
  const categories = [...new Set(all.map((c) => c.category ?? c.type ?? "").filter(Boolean))].sort();
  const crumbs = all.filter((c) => (!level || c.level === level) && (!category || (c.category ?? c.type) === category));
  const filter = (label: string, value: string, set: (v: string) => void, options: string[]) => (
    <select
      aria-label={label}
      value={value}
      onChange={(e) => set(e.target.value)}
      className="input h-[26px] w-auto max-w-[200px] pr-1 text-[12px]"
    >
      <option value="">All {label.toLowerCase()}</option>
      {options.map((o) => (
        <option key={o} value={o}>
          {o}
        </option>
      ))}
    </select>
  );
  return (
    <div>
      <div className="mb-2 flex flex-wrap items-center gap-2">
        {filter("Levels", level, setLevel, levels)}
        {filter("Categories", category, setCategory, categories)}
        <span className="tabular text-[12px] text-fg-dim">
          {crumbs.length === all.length ? `${all.length} breadcrumbs` : `${crumbs.length} of ${all.length}`}
        </span>
      </div>
      <ScrollRegion label="Breadcrumbs table" className="rounded-md border border-border">
        <table className="w-full border-collapse text-[12.5px]">
          <caption className="sr-only">Breadcrumbs, newest first</caption>
          <thead>
            <tr className="border-b border-border bg-subtle text-left text-[11px] uppercase tracking-wide text-fg-muted">
              <th scope="col" className="w-[110px] px-3 py-1.5 font-medium">
                Time (UTC)
              </th>
              <th scope="col" className="w-[140px] px-3 py-1.5 font-medium">
                Category
              </th>
              <th scope="col" className="w-[90px] px-3 py-1.5 font-medium">
                Level
              </th>
              <th scope="col" className="px-3 py-1.5 font-medium">
                Message
              </th>
            </tr>
          </thead>
          <tbody>
            {crumbs.map((c, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: breadcrumbs are positional.
              <tr key={i} className="border-b border-border align-top last:border-b-0">
                <td
                  className="tabular px-3 py-1 font-mono text-[12px] whitespace-nowrap text-fg-muted"
                  title={c.time !== null ? absoluteTime(c.time) : undefined}
                >
                  {c.time !== null ? clockTime(c.time) : "–"}
                </td>
                <td className="px-3 py-1 font-mono text-[12px] break-all">
                  {/* Not sent: Sentry's defaults (type "default", level "info"), dimmed, instead of a bare dash. */}
                  {c.category ?? c.type ?? (
                    <span className="text-fg-dim" title="No category or type was sent">
                      default
                    </span>
                  )}
                </td>
                <td className="px-3 py-1">
                  <span
                    className={`inline-flex items-center gap-1.5 ${c.level ? "" : "text-fg-dim"}`}
                    title={c.level ? undefined : "No level was sent"}
                  >
                    <LevelDot level={c.level ?? "info"} />
                    {c.level ?? "info"}
                  </span>
                </td>
                <td className="px-3 py-1">
                  {c.message ? <div className="break-words whitespace-pre-wrap">{c.message}</div> : null}
                  {c.data.length > 0 ? (
                    <div className="font-mono text-[11.5px] break-all text-fg-muted">
                      {c.data.map(([k, v], j) => (
                        // biome-ignore lint/suspicious/noArrayIndexKey: positional.
                        <span key={j} className="mr-3 inline-block">
                          <span className="text-fg-dim">{k}:</span> {v}
                        </span>
                      ))}
                    </div>
                  ) : null}
                  {!c.message && c.data.length === 0 ? <span className="text-fg-dim">–</span> : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollRegion>
    </div>
  );
}
