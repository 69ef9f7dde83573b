import { FrameModes } from "./frame-modes";
import type { ExceptionView } from "./model";
import { StackTrace } from "./stack-trace";

/** The main exception first, then each "caused by" with its own frames; a raw/original switch when source maps were applied. */
export function ExceptionChain({ exceptions }: { exceptions: ExceptionView[] }) {
  const hasRaw = exceptions.some((e) => (e.rawFrames?.length ?? 0) > 0);
  const chain = (
    <div className="flex flex-col gap-5">
      {exceptions.map((ex, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the chain is positional.
        <article key={i} aria-label={i === 0 ? "Exception" : `Caused by ${ex.type ?? "exception"}`}>
          {i > 0 ? <div className="section-title mb-1.5">Caused by</div> : null}
          <ExceptionHead ex={ex} main={i === 0} />
          <div className="mt-2">
            {hasRaw ? (
              <>
                <div className="group-data-[frames=raw]/fm:hidden" data-testid="frames-original">
                  <StackTrace frames={ex.frames} crashLabel={i === 0 ? "crashed here" : "thrown here"} />
                </div>
                <div className="hidden group-data-[frames=raw]/fm:block" data-testid="frames-raw">
                  <StackTrace frames={ex.rawFrames ?? ex.frames} crashLabel={i === 0 ? "crashed here" : "thrown here"} />
                </div>
              </>
            ) : (
              <StackTrace frames={ex.frames} crashLabel={i === 0 ? "crashed here" : "thrown here"} />
            )}
          </div>
        </article>
      ))}
    </div>
  );
  return hasRaw ? <FrameModes>{chain}</FrameModes> : chain;
}

function ExceptionHead({ ex, main }: { ex: ExceptionView; main: boolean }) {
  const m = ex.mechanism;
  return (
    <div>
      <div className="flex flex-wrap items-center gap-2">
        <h3 className={`font-mono font-semibold break-all ${main ? "text-[14px]" : "text-[13px]"}`}>
          {ex.module ? <span className="font-normal text-fg-dim">{ex.module}.</span> : null}
          {ex.type ?? "Error"}
        </h3>
        {m?.handled === false ? <span className="badge border-crash-border text-fg">unhandled</span> : null}
        {m?.handled === true ? <span className="badge">handled</span> : null}
        {m?.type ? (
          <span className="badge font-mono" title="Mechanism">
            {m.type}
          </span>
        ) : null}
      </div>
      {ex.value ? <p className="mt-0.5 break-words whitespace-pre-wrap text-[13px]">{ex.value}</p> : null}
    </div>
  );
}
