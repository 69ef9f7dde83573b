"use client";

/**
 * The replay player: the SDK's recording played with Sentry's own fork of rrweb (@sentry/rrweb,
 * the replayer of the recorder the SDK uses), which the page loads only when a replay is shown —
 * the import below is dynamic, so no other page carries its ~140 KB. The first segment is fetched
 * alone and drawn at once; the rest stream in behind it. Beside it, the breadcrumb timeline
 * (navigation, clicks with dead and rage clicks, inputs, console, network, the errors) jumps the
 * player to each moment. Keyboard: Space or K plays and pauses, ←/→ (J/L) move 5 s, Shift 15 s,
 * Home and End, [ and ] change the speed, S toggles skipping inactivity.
 *
 * The recorded page plays in rrweb's sandboxed iframe (no scripts run), under Errata's own CSP:
 * nothing the recording references is fetched from the recorded site. Text and inputs the SDK
 * masked arrive masked and stay so.
 */
import "@sentry/rrweb/dist/style.css";
import { type KeyboardEvent, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { type TimelineItem, timelineOf } from "@/core/replays/timeline";
import { formatOffset } from "./format";
import { byTime, fetchSegment, fetchSegments, segmentUrl } from "./load-segments";

type Replayer = import("@sentry/rrweb").Replayer;

/**
 * The replayer's code, requested when this module loads in the browser (with the page's scripts),
 * not when the player mounts after hydration: it is on its way while React hydrates the page.
 */
let rrweb: Promise<typeof import("@sentry/rrweb")> | undefined;
function loadRrweb(): Promise<typeof import("@sentry/rrweb")> {
  rrweb ??= import("@sentry/rrweb");
  return rrweb;
}
if (typeof window !== "undefined") void loadRrweb().catch(() => {});

/**
 * The first segment, inflated and parsed, started when this module loads (before React hydrates
 * the page) from the preload the server render put in the head: by the time the player mounts, its
 * first frame only waits for the replayer to draw. Each URL is taken once; a later mount (another
 * replay, the same one revisited) fetches its own.
 */
const early = new Map<string, Promise<unknown[] | null>>();
if (typeof document !== "undefined") {
  for (const link of document.querySelectorAll<HTMLLinkElement>('link[rel="preload"][as="fetch"]')) {
    const url = link.getAttribute("href");
    if (!url?.includes("/recording-segments/")) continue;
    const started = fetchSegment(url, new AbortController().signal);
    started.catch(() => {});
    early.set(url, started);
  }
}
function firstSegment(url: string, signal: AbortSignal): Promise<unknown[] | null> {
  const started = early.get(url);
  early.delete(url);
  return started ?? fetchSegment(url, signal);
}

export interface PlayerError {
  /** epoch ms */
  at: number;
  label: string;
  href?: string | null;
}

export interface ReplayPlayerProps {
  /** Sentry's recording-segments endpoint of the replay (the same one its clients read) */
  segmentsUrl: string;
  /**
   * The stored segments' ids: each is then fetched as stored (zlib, a tenth of the JSON's bytes,
   * no work on the server), a few at a time; without them the pages of the JSON download are read.
   */
  segmentIds?: number[];
  /** epoch ms to open at (a few seconds before an error); the start when absent */
  startAt?: number | null;
  errors?: PlayerError[];
  /** a shorter frame and list (the issue and digest pages) */
  compact?: boolean;
}

type Status = "loading" | "paused" | "playing" | "ended" | "failed";

const SPEEDS = [0.5, 1, 2, 4, 8] as const;
const STEP_MS = 5000;
const REST_PAGE = 50;
/** Segments requested ahead of the one being added. */
const SEGMENT_WINDOW = 4;

const KIND_LABEL: Record<TimelineItem["kind"], string> = {
  navigation: "Nav",
  click: "Click",
  dead: "Dead",
  rage: "Rage",
  input: "Input",
  console: "Log",
  network: "Net",
  error: "Error",
};

function tone(item: TimelineItem): string {
  if (item.kind === "error" || item.kind === "rage" || item.level === "error") return "text-danger";
  if (item.kind === "dead" || item.level === "warn" || item.level === "warning") return "text-fg";
  return "text-fg-muted";
}

/** The next page after the first: the same cursor, a larger page. */
function restUrl(next: string): string {
  const u = new URL(next, "http://x");
  u.searchParams.set("per_page", String(REST_PAGE));
  return `${u.pathname}${u.search}`;
}

export function ReplayPlayer({ segmentsUrl, segmentIds, startAt = null, errors = [], compact = false }: ReplayPlayerProps) {
  const outer = useRef<HTMLDivElement>(null);
  const stage = useRef<HTMLDivElement>(null);
  const replayer = useRef<Replayer | null>(null);
  const [status, setStatus] = useState<Status>("loading");
  const [problem, setProblem] = useState<string | null>(null);
  const [current, setCurrent] = useState(0);
  const [meta, setMeta] = useState({ start: 0, total: 0 });
  const [complete, setComplete] = useState(false);
  const [speed, setSpeed] = useState<number>(1);
  const [skip, setSkip] = useState(true);
  const [crumbs, setCrumbs] = useState<TimelineItem[]>([]);
  const [size, setSize] = useState({ width: 1280, height: 720 });
  const [scale, setScale] = useState(0.5);

  const readMeta = useCallback(() => {
    const r = replayer.current;
    if (!r) return;
    const m = r.getMetaData();
    setMeta((old) => (old.start === m.startTime && old.total === m.totalTime ? old : { start: m.startTime, total: m.totalTime }));
  }, []);

  // The ids as a string: a new array on each render of the page must not reload the recording.
  const idsKey = segmentIds?.join(",") ?? "";
  useEffect(() => {
    const ctrl = new AbortController();
    const storedIds = idsKey ? idsKey.split(",").map(Number) : null;
    let r: Replayer | null = null;
    const all: unknown[] = [];
    setStatus("loading");
    setProblem(null);
    setComplete(false);
    (async () => {
      // Segment 0 alone first (stored zlib, sent as is), the rest after it; a replay without a
      // segment 0 (lost, or still on its way) starts from its first page instead.
      performance.mark("replay:start");
      const ids = storedIds ?? [0];
      const mark =
        <T,>(name: string) =>
        (value: T): T => {
          performance.mark(name);
          return value;
        };
      const [{ Replayer }, zero] = await Promise.all([
        loadRrweb().then(mark("replay:rrweb")),
        firstSegment(segmentUrl(segmentsUrl, ids[0]), ctrl.signal).then(mark("replay:segment0")),
      ]);
      // Without its first segment (lost, or still on its way) the replay starts from its first page.
      const first = zero
        ? { events: zero, next: storedIds ? null : `${segmentsUrl}?download=true&per_page=${REST_PAGE}&cursor=0:1:0` }
        : await fetchSegments(`${segmentsUrl}?download=true&per_page=1`, ctrl.signal);
      const events = byTime(first.events);
      if (events.length < 2 || !stage.current)
        throw new Error("The recording has no frames yet; its first segment may still be on its way.");
      r = new Replayer(events as never, {
        root: stage.current,
        skipInactive: true,
        mouseTail: false,
        showWarning: false,
        triggerFocus: false,
        pauseAnimation: true,
        UNSAFE_replayCanvas: false,
        speed: 1,
      });
      replayer.current = r;
      // rrweb's iframe: named for assistive technology, and out of the tab order (the player has the keys).
      r.iframe.title = "The recorded page, as the user saw it";
      r.iframe.tabIndex = -1;
      r.on("resize", (d) => {
        const dim = d as { width?: number; height?: number };
        if (dim.width && dim.height) setSize({ width: dim.width, height: dim.height });
      });
      r.on("finish", () => setStatus("ended"));
      all.push(...events);
      setCrumbs(timelineOf(all));
      readMeta();
      const base = r.getMetaData().startTime;
      const wanted = startAt ? Math.max(0, startAt - base) : 0;
      const openAt = Math.min(wanted, r.getMetaData().totalTime);
      r.pause(openAt);
      setCurrent(openAt);
      setStatus("paused");
      // The first frame is drawn: bench:replay reads these marks.
      performance.mark("replay:first-frame");
      const add = (events: unknown[]) => {
        const more = byTime(events);
        for (const e of more) r?.addEvent(e as never);
        all.push(...more);
        setCrumbs(timelineOf(all));
      };
      if (zero && storedIds) {
        // The rest as stored, SEGMENT_WINDOW requests ahead, added in order.
        const rest = storedIds.slice(1);
        const pending = rest.slice(0, SEGMENT_WINDOW).map((id) => fetchSegment(segmentUrl(segmentsUrl, id), ctrl.signal));
        for (let k = 0; k < rest.length && !ctrl.signal.aborted; k++) {
          const events = await pending[k];
          const ahead = rest[k + SEGMENT_WINDOW];
          if (ahead !== undefined) pending.push(fetchSegment(segmentUrl(segmentsUrl, ahead), ctrl.signal));
          if (events) add(events);
        }
      }
      let next = first.next ? restUrl(first.next) : null;
      while (next && !ctrl.signal.aborted) {
        const page = await fetchSegments(next, ctrl.signal);
        add(page.events);
        next = page.next;
      }
      // ADD_EVENT is applied on a microtask: read the totals after it.
      await Promise.resolve();
      readMeta();
      setComplete(true);
      // The moment asked for was past the first segment: go there now that it is here.
      if (wanted > openAt && r.getCurrentTime() <= openAt) {
        const to = Math.min(wanted, r.getMetaData().totalTime);
        r.pause(to);
        setCurrent(to);
      }
    })().catch((err: unknown) => {
      if (ctrl.signal.aborted) return;
      setProblem(err instanceof Error ? err.message : "The recording could not be played.");
      setStatus("failed");
    });
    return () => {
      ctrl.abort();
      r?.destroy();
      replayer.current = null;
    };
  }, [segmentsUrl, idsKey, startAt, readMeta]);

  // The position while playing, ten times a second.
  useEffect(() => {
    if (status !== "playing") return;
    const t = setInterval(() => {
      const r = replayer.current;
      if (!r) return;
      setCurrent(r.getCurrentTime());
      readMeta();
    }, 100);
    return () => clearInterval(t);
  }, [status, readMeta]);

  // The recorded viewport scaled into the space there is (phones included): never wider than the page.
  useEffect(() => {
    const el = outer.current;
    if (!el) return;
    const rescale = () => {
      const maxH = compact ? 360 : Math.max(240, Math.min(620, window.innerHeight - 220));
      setScale(Math.min(1, el.clientWidth / size.width, maxH / size.height));
    };
    rescale();
    const ro = new ResizeObserver(rescale);
    ro.observe(el);
    return () => ro.disconnect();
  }, [size, compact]);

  const seek = useCallback(
    (offset: number) => {
      const r = replayer.current;
      if (!r) return;
      const to = Math.max(0, Math.min(offset, r.getMetaData().totalTime));
      if (status === "playing") r.play(to);
      else {
        r.pause(to);
        if (status === "ended") setStatus("paused");
      }
      setCurrent(to);
    },
    [status],
  );

  const toggle = useCallback(() => {
    const r = replayer.current;
    if (!r || status === "loading" || status === "failed") return;
    if (status === "playing") {
      r.pause();
      setCurrent(r.getCurrentTime());
      setStatus("paused");
    } else {
      r.play(status === "ended" ? 0 : r.getCurrentTime());
      setStatus("playing");
    }
  }, [status]);

  const changeSpeed = useCallback((s: number) => {
    setSpeed(s);
    replayer.current?.setConfig({ speed: s });
  }, []);

  const changeSkip = useCallback((on: boolean) => {
    setSkip(on);
    replayer.current?.setConfig({ skipInactive: on });
  }, []);

  const items = useMemo(() => {
    const errs: TimelineItem[] = errors.map((e) => ({ at: e.at, kind: "error", label: "Error", detail: e.label, level: "error" }));
    return [...crumbs, ...errs].sort((a, b) => a.at - b.at);
  }, [crumbs, errors]);
  const hrefOf = useMemo(() => new Map(errors.map((e) => [`${e.at}:${e.label}`, e.href ?? null])), [errors]);
  const activeIndex = useMemo(() => {
    let idx = -1;
    for (const [i, it] of items.entries()) if (it.at - meta.start <= current + 50) idx = i;
    return idx;
  }, [items, meta.start, current]);

  function onKey(e: KeyboardEvent<HTMLDivElement>) {
    // Typing in the speed select or a button's own keys stay theirs.
    if (e.target instanceof HTMLSelectElement || (e.target instanceof HTMLInputElement && e.target.type !== "range")) return;
    const step = e.shiftKey ? 3 * STEP_MS : STEP_MS;
    const at = replayer.current?.getCurrentTime() ?? current;
    const i = SPEEDS.indexOf(speed as (typeof SPEEDS)[number]);
    let act: (() => void) | undefined;
    switch (e.key) {
      case " ":
      case "k":
        act = toggle;
        break;
      case "ArrowLeft":
      case "j":
        act = () => seek(at - step);
        break;
      case "ArrowRight":
      case "l":
        act = () => seek(at + step);
        break;
      case "Home":
        act = () => seek(0);
        break;
      case "End":
        act = () => seek(meta.total);
        break;
      case "[":
        act = () => changeSpeed(SPEEDS[Math.max(0, i - 1)] as number);
        break;
      case "]":
        act = () => changeSpeed(SPEEDS[Math.min(SPEEDS.length - 1, i + 1)] as number);
        break;
      case "s":
        act = () => changeSkip(!skip);
        break;
    }
    if (!act || e.metaKey || e.ctrlKey || e.altKey) return;
    if (e.target instanceof HTMLButtonElement && (e.key === " " || e.key === "Enter")) return;
    e.preventDefault();
    act();
  }

  const ready = status !== "loading" && status !== "failed";
  const pct = meta.total > 0 ? (current / meta.total) * 100 : 0;
  return (
    <section
      className="flex min-w-0 flex-col gap-3 lg:flex-row"
      aria-label="Session replay player"
      data-testid="replay-player"
      data-status={status}
      data-current={Math.round(current)}
      data-total={Math.round(meta.total)}
      data-start={meta.start}
      data-complete={complete ? "true" : "false"}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: the player takes its keyboard shortcuts (Space, arrows) when focused
      tabIndex={0}
      onKeyDown={onKey}
    >
      <div className="min-w-0 flex-1">
        <div
          ref={outer}
          className="relative flex w-full justify-center overflow-hidden rounded-md border border-border bg-muted"
          style={{ height: Math.round(size.height * scale) + 2 }}
        >
          <div style={{ width: Math.round(size.width * scale), height: Math.round(size.height * scale), overflow: "hidden" }}>
            <div
              ref={stage}
              className="replay-stage"
              style={{ width: size.width, height: size.height, transform: `scale(${scale})`, transformOrigin: "top left" }}
            />
          </div>
          {status === "loading" ? (
            <p className="absolute inset-0 flex items-center justify-center gap-2 text-fg-muted">
              <span className="spinner" aria-hidden="true" /> Loading the recording…
            </p>
          ) : null}
          {status === "failed" ? (
            <p role="alert" className="absolute inset-0 flex items-center justify-center px-6 text-center text-fg-muted">
              {problem}
            </p>
          ) : null}
        </div>
        <div className="mt-2 flex flex-wrap items-center gap-2">
          <button
            type="button"
            className="btn btn-sm"
            onClick={toggle}
            disabled={!ready}
            title="Play or pause (Space, K)"
            data-testid="replay-toggle"
          >
            {status === "playing" ? "❚❚ Pause" : "▶ Play"}
          </button>
          <button type="button" className="btn btn-sm" onClick={() => seek(current - STEP_MS)} disabled={!ready} title="Back 5 s (←, J)">
            −5s
          </button>
          <button type="button" className="btn btn-sm" onClick={() => seek(current + STEP_MS)} disabled={!ready} title="Forward 5 s (→, L)">
            +5s
          </button>
          <span className="tabular font-mono text-[12px] text-fg-muted" data-testid="replay-time">
            {formatOffset(current)} / {formatOffset(meta.total)}
            {!complete && ready ? " …" : ""}
          </span>
          <label className="ml-auto flex items-center gap-1 text-[12px] text-fg-muted">
            Speed
            <select
              className="input h-6 w-auto px-1 text-[12px]"
              value={speed}
              onChange={(e) => changeSpeed(Number(e.target.value))}
              title="Speed ([ and ])"
            >
              {SPEEDS.map((s) => (
                <option key={s} value={s}>
                  {s}×
                </option>
              ))}
            </select>
          </label>
          <label className="flex items-center gap-1 text-[12px] text-fg-muted" title="Skip inactivity (S)">
            <input type="checkbox" checked={skip} onChange={(e) => changeSkip(e.target.checked)} />
            Skip inactivity
          </label>
        </div>
        <div className="relative mt-2 h-6">
          <div className="pointer-events-none absolute inset-x-0 top-0 h-2" aria-hidden="true">
            {meta.total > 0
              ? items
                  .filter((it) => it.kind !== "console" && it.kind !== "network")
                  .map((it) => (
                    <span
                      key={`${it.at}-${it.kind}-${it.label}-${it.detail ?? ""}`}
                      className={`absolute top-0 h-2 w-0.5 ${it.kind === "error" || it.kind === "rage" ? "bg-error" : it.kind === "dead" ? "bg-warning" : "bg-border-strong"}`}
                      style={{ left: `${Math.min(100, Math.max(0, ((it.at - meta.start) / meta.total) * 100))}%` }}
                    />
                  ))
              : null}
          </div>
          <input
            type="range"
            className="absolute inset-x-0 bottom-0 w-full"
            min={0}
            max={Math.max(1, Math.round(meta.total))}
            step={100}
            value={Math.round(current)}
            onChange={(e) => seek(Number(e.target.value))}
            disabled={!ready}
            aria-label="Position in the replay"
            aria-valuetext={`${formatOffset(current)} of ${formatOffset(meta.total)}`}
            style={{ accentColor: "var(--fg-muted)" }}
            data-pct={pct.toFixed(1)}
          />
        </div>
        <p className="mt-1 hidden text-[11.5px] text-fg-dim sm:block">
          Keys: <kbd>Space</kbd> play/pause · <kbd>←</kbd> <kbd>→</kbd> 5 s · <kbd>[</kbd> <kbd>]</kbd> speed · <kbd>S</kbd> skip inactivity
        </p>
      </div>
      <nav
        aria-label="Replay timeline"
        className={`min-w-0 overflow-y-auto rounded-md border border-border lg:w-[300px] lg:shrink-0 ${compact ? "max-h-[260px]" : "max-h-[320px] lg:max-h-[640px]"}`}
      >
        {items.length === 0 ? (
          <p className="px-3 py-3 text-fg-muted">{status === "loading" ? "Loading breadcrumbs…" : "No breadcrumbs recorded."}</p>
        ) : (
          <ol className="divide-y divide-border" data-testid="replay-breadcrumbs">
            {items.map((it, i) => {
              const href = it.kind === "error" ? hrefOf.get(`${it.at}:${it.detail}`) : null;
              return (
                <li key={`${it.at}-${it.kind}-${it.label}-${it.detail ?? ""}`} className={i === activeIndex ? "bg-hover" : undefined}>
                  <div className="flex items-start gap-2 px-2 py-1.5">
                    <button
                      type="button"
                      className="flex min-w-0 flex-1 items-start gap-2 text-left hover:text-fg"
                      onClick={() => seek(it.at - meta.start)}
                      disabled={!ready}
                      data-testid="replay-crumb"
                      data-kind={it.kind}
                      data-at={it.at}
                      aria-current={i === activeIndex ? "step" : undefined}
                    >
                      <span className="tabular w-9 shrink-0 font-mono text-[11.5px] text-fg-dim">{formatOffset(it.at - meta.start)}</span>
                      <span className={`w-10 shrink-0 text-[11.5px] font-semibold ${tone(it)}`}>{KIND_LABEL[it.kind]}</span>
                      <span className="min-w-0 flex-1">
                        <span className="block text-[12.5px]">{it.label}</span>
                        {it.detail ? <span className="block truncate font-mono text-[11.5px] text-fg-muted">{it.detail}</span> : null}
                      </span>
                    </button>
                    {href ? (
                      <a href={href} className="shrink-0 text-[11.5px] text-fg-muted hover:text-fg">
                        Issue →
                      </a>
                    ) : null}
                  </div>
                </li>
              );
            })}
          </ol>
        )}
      </nav>
    </section>
  );
}
