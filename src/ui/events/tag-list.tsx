import type { Pairs } from "./model";

/** Tags as key/value chips. */
export function TagList({ tags }: { tags: Pairs }) {
  if (tags.length === 0) return <p className="text-fg-dim">No tags.</p>;
  return (
    <ul className="flex flex-wrap gap-1.5" aria-label="Tags">
      {tags.map(([k, v], i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: tags can repeat.
        <li key={i} className="inline-flex max-w-full overflow-hidden rounded border border-border text-[12px]">
          <span className="bg-subtle px-1.5 py-0.5 text-fg-muted">{k}</span>
          <span className="truncate px-1.5 py-0.5 font-mono text-[11.5px]" title={v}>
            {v}
          </span>
        </li>
      ))}
    </ul>
  );
}
