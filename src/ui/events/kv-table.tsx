import { Fragment } from "react";
import type { Pairs } from "./model";

/** A key that may wrap only after `_ . - /` (`app_start_time` wrapped mid-word as `app_start_ti/me`). */
function BreakableKey({ text }: { text: string }) {
  const parts = text.split(/(?<=[_.\-/])/);
  return (
    <>
      {parts.map((p, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: positional pieces of one key.
        <Fragment key={i}>
          {i > 0 ? <wbr /> : null}
          {p}
        </Fragment>
      ))}
    </>
  );
}

/** A small key/value table; values are text (monospace, wrapped). */
export function KvTable({ pairs, label, className = "" }: { pairs: Pairs; label?: string; className?: string }) {
  if (pairs.length === 0) return <p className="text-fg-dim">None.</p>;
  return (
    <table className={`w-full border-collapse text-[12.5px] ${className}`} aria-label={label}>
      <tbody>
        {pairs.map(([k, v], i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: keys can repeat (headers).
          <tr key={i} className="border-b border-border last:border-b-0 align-top">
            <th scope="row" className="w-[34%] py-1 pr-3 text-left font-normal break-normal text-fg-muted">
              <BreakableKey text={k} />
            </th>
            <td className="py-1 font-mono text-[12px] [overflow-wrap:anywhere] whitespace-pre-wrap">
              {v === "" ? <span className="text-fg-dim">(empty)</span> : v}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
