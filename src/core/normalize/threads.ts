/** Threads: `threads.values` entries and their stack traces. */

import type { NormalizedEvent, Thread, TrimLimits } from "../event";
import { isObj, valuesOf } from "./coerce";
import type { Notes } from "./notes";
import { normalizeStacktraceField } from "./stacktrace";

export function normalizeThreads(event: NormalizedEvent, notes: Notes, limits: TrimLimits): void {
  const got = valuesOf(event.threads, "threads", notes);
  if (!got) {
    delete event.threads;
    return;
  }
  const values: Thread[] = [];
  got.values.forEach((raw, i) => {
    if (!isObj(raw)) {
      if (raw !== null) notes.add("dropped", `threads.values.${i}`, "A thread entry is not an object.");
      return;
    }
    const thread: Thread = { ...raw };
    normalizeStacktraceField(thread, `threads.values.${i}.stacktrace`, notes, limits);
    values.push(thread);
  });
  event.threads = { ...got.rest, values };
}
