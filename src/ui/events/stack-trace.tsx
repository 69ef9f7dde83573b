import { countOf } from "../kit/format";
import { KvTable } from "./kv-table";
import type { FrameView } from "./model";
import { SourceContext } from "./source-context";

type Item = { kind: "frame"; frame: FrameView; crash: boolean; open: boolean } | { kind: "group"; frames: FrameView[] };

/**
 * Frames newest first (the crash frame on top, Sentry's default). In-app frames are expanded with
 * their source context; runs of library frames fold into "N more frames".
 */
export function StackTrace({ frames, crashLabel = "crashed here" }: { frames: FrameView[]; crashLabel?: string }) {
  if (frames.length === 0) return <p className="px-3 py-2 text-fg-dim">No stack trace was sent with this exception.</p>;
  const newestFirst = [...frames].reverse();
  const anyInApp = newestFirst.some((f) => f.inApp);
  const items: Item[] = [];
  newestFirst.forEach((frame, i) => {
    const crash = i === 0;
    if (!anyInApp || frame.inApp || crash) {
      items.push({ kind: "frame", frame, crash, open: frame.inApp || crash });
      return;
    }
    const last = items[items.length - 1];
    if (last?.kind === "group") last.frames.push(frame);
    else items.push({ kind: "group", frames: [frame] });
  });
  return (
    <ol className="overflow-hidden rounded-md border border-border" aria-label="Stack frames, most recent call first">
      {items.map((item, i) =>
        item.kind === "frame" ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: frames are positional.
          <li key={i} className="border-b border-border last:border-b-0">
            <Frame frame={item.frame} crash={item.crash ? crashLabel : null} open={item.open} />
          </li>
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: frames are positional.
          <li key={i} className="border-b border-border last:border-b-0">
            <details className="group/more">
              <summary className="flex h-7 list-none items-center gap-2 bg-subtle px-3 text-[12px] text-fg-muted hover:text-fg [&::-webkit-details-marker]:hidden">
                <Chevron className="group-open/more:rotate-90" />
                <span className="group-open/more:hidden">{countOf(item.frames.length, "more frame", "more frames")}</span>
                <span className="hidden group-open/more:inline">Hide {countOf(item.frames.length, "library frame")}</span>
              </summary>
              <ol>
                {item.frames.map((f, j) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: frames are positional.
                  <li key={j} className="border-t border-border">
                    <Frame frame={f} crash={null} open={false} />
                  </li>
                ))}
              </ol>
            </details>
          </li>
        ),
      )}
    </ol>
  );
}

function hasDetail(f: FrameView): boolean {
  return f.contextLine !== undefined || f.pre.length > 0 || f.post.length > 0 || f.vars.length > 0;
}

function Frame({ frame, crash, open }: { frame: FrameView; crash: string | null; open: boolean }) {
  const head = <FrameHead frame={frame} crash={crash} />;
  if (!hasDetail(frame)) return <div className="flex min-h-7 items-center gap-2 py-1 pr-3 pl-[26px]">{head}</div>;
  return (
    <details open={open} className="group/frame">
      <summary className="flex min-h-7 list-none items-center gap-2 py-1 pr-3 pl-3 hover:bg-hover [&::-webkit-details-marker]:hidden">
        <Chevron className="group-open/frame:rotate-90" />
        {head}
      </summary>
      <SourceContext frame={frame} />
      {frame.vars.length > 0 ? (
        <div className="border-t border-border px-3 py-2">
          <div className="section-title mb-1">Variables</div>
          <KvTable pairs={frame.vars} label="Frame variables" />
        </div>
      ) : null}
    </details>
  );
}

function FrameHead({ frame, crash }: { frame: FrameView; crash: string | null }) {
  const file = frame.filename ?? frame.module ?? frame.package;
  const pos = frame.lineno !== undefined ? `${frame.lineno}${frame.colno !== undefined ? `:${frame.colno}` : ""}` : null;
  return (
    <span className="flex min-w-0 flex-1 flex-wrap items-baseline gap-x-2 font-mono text-[12px]">
      <span className={`font-semibold ${frame.inApp ? "text-fg" : "text-fg-muted"}`}>{frame.function ?? "?"}</span>
      {file ? (
        <span className="min-w-0 break-all text-fg-dim">
          {file}
          {pos ? <span className="text-fg-muted">:{pos}</span> : null}
        </span>
      ) : pos ? (
        <span className="text-fg-muted">line {pos}</span>
      ) : null}
      <span className="ml-auto flex shrink-0 gap-1 font-sans">
        {frame.mapError ? (
          <span className="badge" title="A source map could not be applied to this frame (see Processing notes)">
            {frame.mapError.replace(/_/g, " ")}
          </span>
        ) : null}
        {crash ? <span className="badge border-crash-border text-fg">{crash}</span> : null}
        {frame.inApp ? <span className="badge">in app</span> : null}
      </span>
    </span>
  );
}

function Chevron({ className = "" }: { className?: string }) {
  return (
    <svg className={`shrink-0 text-fg-dim transition-transform ${className}`} width="10" height="10" viewBox="0 0 10 10" aria-hidden="true">
      <path d="M3.5 2l3 3-3 3" fill="none" stroke="currentColor" strokeWidth="1.4" />
    </svg>
  );
}
