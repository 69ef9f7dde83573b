const STEPS = ["Create a project", "Set up the SDK", "Receive the first event"] as const;

/** Where the guided setup stands: done steps ticked, the current one bold. `current` 4 = all done. */
export function OnboardingSteps({ current }: { current: 1 | 2 | 3 | 4 }) {
  return (
    <ol className="flex flex-wrap items-center gap-x-2 gap-y-1 text-[12.5px]" aria-label="Setup steps">
      {STEPS.map((label, i) => {
        const n = i + 1;
        const done = n < current;
        // Setting up the SDK and waiting for its first event happen on one page: both are current.
        const active = n === current || (current === 2 && n === 3);
        return (
          <li key={label} className="flex items-center gap-2" aria-current={n === current ? "step" : undefined}>
            {i > 0 ? <span className="hidden h-px w-6 bg-border-strong sm:block" aria-hidden="true" /> : null}
            <span
              className={`flex size-5 items-center justify-center rounded-full border text-[11px] tabular ${
                done ? "border-fg bg-fg text-bg" : active ? "border-fg text-fg" : "border-border-strong text-fg-dim"
              }`}
              aria-hidden="true"
            >
              {done ? "✓" : n}
            </span>
            <span className={done ? "text-fg-muted" : active ? "font-medium text-fg" : "text-fg-dim"}>
              {label}
              {done ? <span className="sr-only"> (done)</span> : null}
            </span>
          </li>
        );
      })}
    </ol>
  );
}
