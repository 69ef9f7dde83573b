import Link from "next/link";
import type { TagDistribution } from "@/server/issues/stream";
import { quoteValue } from "../../core/search/suggest";
import { countOf } from "../kit/format";

/**
 * Tag value distributions of an issue: per key, the top values as bars (share of the events that
 * carried the key); the latest event's value is marked. Each value searches the stream for it.
 */
export function TagDistributions({
  tags,
  streamPath,
  current,
}: {
  tags: TagDistribution[];
  streamPath: string;
  current: Map<string, string>;
}) {
  if (tags.length === 0) return <p className="text-[12.5px] text-fg-dim">No tag counts yet: they start with the next event.</p>;
  return (
    <ul className="flex flex-col gap-3" aria-label="Tag distributions">
      {tags.map((t) => {
        const shown = t.top.reduce((a, v) => a + v.count, 0);
        const other = t.total - shown;
        return (
          <li key={t.key}>
            <h3 className="mb-1 flex items-baseline justify-between gap-2 text-[12px]">
              <span className="truncate font-medium">{t.key}</span>
              <span className="tabular shrink-0 text-fg-dim">{t.total.toLocaleString("en")}</span>
            </h3>
            <ul className="flex flex-col gap-0.5">
              {t.top.map((v) => (
                <Bar
                  key={v.value}
                  label={v.value}
                  count={v.count}
                  total={t.total}
                  mark={current.get(t.key) === v.value}
                  href={`${streamPath}?query=${encodeURIComponent(`${t.key.includes(" ") ? quoteValue(t.key) : t.key}:${quoteValue(v.value)}`)}&status=all`}
                />
              ))}
              {other > 0 ? <Bar label="Other" count={other} total={t.total} mark={false} /> : null}
            </ul>
          </li>
        );
      })}
    </ul>
  );
}

function Bar({ label, count, total, mark, href }: { label: string; count: number; total: number; mark: boolean; href?: string }) {
  const pct = total > 0 ? (count / total) * 100 : 0;
  const share = `${pct < 1 && pct > 0 ? "<1" : Math.round(pct)}%`;
  const text = `${label}: ${count.toLocaleString("en")} (${share})`;
  // The accessible name starts with the visible text ("production 100%"), then says the count:
  // a speech user says what they see (WCAG 2.5.3).
  const inner = (
    <>
      <span className="absolute inset-y-0 left-0 rounded-sm bg-muted" style={{ width: `${Math.max(pct, 0.5)}%` }} aria-hidden="true" />
      <span className={`relative truncate font-mono text-[11.5px] ${mark ? "font-semibold" : ""}`}>
        {mark ? <span aria-hidden="true">● </span> : null}
        {label}
      </span>
      <span className="tabular relative ml-auto shrink-0 text-[11.5px] text-fg-muted">{share}</span>
      <span className="sr-only">
        {`: ${countOf(count, "event")}`}
        {mark ? ", the latest event's value" : ""}
      </span>
    </>
  );
  return (
    <li>
      {href ? (
        <Link href={href} title={text} className="relative flex h-[20px] items-center gap-2 px-1.5 hover:text-fg touch:h-7">
          {inner}
        </Link>
      ) : (
        <span title={text} className="relative flex h-[20px] items-center gap-2 px-1.5 text-fg-muted touch:h-7">
          {inner}
        </span>
      )}
    </li>
  );
}
