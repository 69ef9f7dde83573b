/**
 * Giving freed native memory back to the system after a burst. glibc's malloc returns memory to
 * the kernel only from the top of a heap: request bodies, SQLite pages and the digest threads'
 * buffers freed in the middle of its heaps stay counted in the process's RSS, unused, for as long
 * as the server stays quiet. Measured on the 2-core development machine (26 Nov, `npm start`
 * flags, 34,000 5 KB events from 16 connections): 288 MB forty seconds after the burst, 225 MB
 * after one `malloc_trim(0)`, which hands back every whole free page of every arena (madvise).
 *
 * Node has no binding for it; koffi (FFI through N-API, prebuilt per platform, no compiler at
 * install) calls libc's. Where there is no glibc (musl, macOS) or the binding fails to load,
 * trimming is a no-op: only the memory stays higher.
 */
import { createRequire } from "node:module";

type Trim = (pad: number) => number;

/** undefined: not tried yet; null: unavailable here */
let bound: Trim | null | undefined;

function bind(): Trim | null {
  if (process.platform !== "linux") return null;
  // musl has no libc.so.6 (nor malloc_trim): the load fails and trimming stays off.
  try {
    const koffi = createRequire(import.meta.url)("koffi") as {
      load(lib: string): { func(signature: string): Trim };
    };
    return koffi.load("libc.so.6").func("int malloc_trim(size_t pad)");
  } catch {
    return null;
  }
}

/** Whether trimming works in this process (glibc and the binding loaded). */
export function canTrimNativeHeap(): boolean {
  bound ??= bind();
  return bound !== null;
}

/**
 * Releases the free pages of every malloc arena (all threads'). Takes a few ms; call it when a
 * burst has ended, after a full GC has freed what the JavaScript heap held. Returns whether glibc
 * released anything.
 */
export function trimNativeHeap(): boolean {
  bound ??= bind();
  return bound !== null && bound(0) === 1;
}

export interface QuietTrim {
  /** Something happened (a request, a batch): the process is not quiet. */
  touch(): void;
  stop(): void;
}

/**
 * Trims once the process has been quiet for a whole `quietMs` after being busy: every `quietMs`
 * it checks whether anything touched it since the last check; if not (and `busy()` says no thread
 * is still working), it collects this thread's garbage (when `--expose-gc` exposes it) and trims.
 * One trim per quiet spell, and at most one per `minGapMs` (a trickle of events, each followed by
 * a quiet spell, would otherwise pay a full GC of this thread every few seconds); a process that
 * stays idle is never walked again.
 */
export function startQuietTrim(opts: { quietMs: number; minGapMs?: number; busy?: () => boolean; collect?: () => void }): QuietTrim {
  let touched = false;
  let dirty = false;
  let lastTrim = Number.NEGATIVE_INFINITY;
  const timer = setInterval(() => {
    if (touched) {
      touched = false;
      dirty = true;
      return;
    }
    if (!dirty || opts.busy?.() || Date.now() - lastTrim < (opts.minGapMs ?? 0)) return;
    dirty = false;
    lastTrim = Date.now();
    opts.collect?.();
    trimNativeHeap();
  }, opts.quietMs);
  timer.unref();
  return {
    touch() {
      touched = true;
    },
    stop() {
      clearInterval(timer);
    },
  };
}
