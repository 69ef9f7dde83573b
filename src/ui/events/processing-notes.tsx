import type { NoteView } from "./model";

/** What Errata changed or could not do while processing the event, and the grouping components. */
export function ProcessingNotes({ notes, grouping }: { notes: NoteView[]; grouping: string[] }) {
  return (
    <div className="flex flex-col gap-3">
      {notes.length > 0 ? (
        <ul className="flex flex-col gap-1">
          {notes.map((n, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: positional.
            <li key={i} className="flex flex-wrap items-baseline gap-2">
              <span className="badge font-mono">{n.type}</span>
              {n.path ? <code className="text-fg-muted">{n.path}</code> : null}
              <span>{n.detail}</span>
            </li>
          ))}
        </ul>
      ) : null}
      {grouping.length > 0 ? (
        <div>
          <h3 className="section-title mb-1">Grouped by</h3>
          <ul className="font-mono text-[12px] text-fg-muted">
            {grouping.map((g, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: positional.
              <li key={i} className="break-all">
                {g}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  );
}
