import type { Pairs } from "./event-model";

/** A small key/value table; values are text (monospace, wrapped). */
export function KvTable({ pairs, label, className = "" }: { pairs: Pairs; label?: string; className?: string }) {
  if (pairs.length === 0) return <p className="text-fg-dim">None.</p>;
  return (
    <table className={`w-full table-fixed border-collapse text-[12.5px] ${className}`} aria-label={label}>
      <tbody>
        {pairs.map(([k, v], i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: keys can repeat (headers).
          <tr key={i} className="border-b border-border last:border-b-0 align-top">
            <th scope="row" className="w-[34%] max-w-[240px] py-1 pr-3 text-left font-normal break-words text-fg-muted">
              {k}
            </th>
            <td className="py-1 font-mono text-[12px] break-words whitespace-pre-wrap">
              {v === "" ? <span className="text-fg-dim">(empty)</span> : v}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
