import type { ReactNode } from "react";
import type { TokenInfo } from "@/server/members/tokens";
import { TimeAgo } from "../kit/time-ago";

/** Tokens with their name, scopes, last use, expiry and what each can do now; `revoke` renders each row's action. */
export function TokenList({ tokens, revoke }: { tokens: TokenInfo[]; revoke: (t: TokenInfo) => ReactNode }) {
  const now = Date.now();
  if (tokens.length === 0) return <p className="text-fg-muted">No tokens yet.</p>;
  return (
    <ul className="flex flex-col divide-y divide-border rounded-md border border-border" aria-label="Tokens">
      {tokens.map((t) => (
        <li key={t.id} className="flex flex-wrap items-center gap-3 px-3 py-2" data-testid="token-row" data-name={t.name}>
          <div className="min-w-0 flex-1">
            <div className="font-medium">
              {t.name} <span className="font-mono text-[12px] text-fg-dim">{t.prefix.includes("…") ? t.prefix : `${t.prefix}…`}</span>
            </div>
            <div className="text-[12px] text-fg-muted">
              <span className="font-mono">{t.scopes.join(" ")}</span> · created <TimeAgo ms={t.createdAt} now={now} /> · last used{" "}
              {t.lastUsedAt ? <TimeAgo ms={t.lastUsedAt} now={now} /> : "never"} ·{" "}
              {t.expiresAt ? (
                <>
                  {t.expiresAt < now ? "expired " : "expires "}
                  <TimeAgo ms={t.expiresAt} now={now} />
                </>
              ) : (
                "no expiry"
              )}
            </div>
            <div className="mt-0.5 text-[12px] text-fg-muted" data-testid="token-can">
              {t.createdBy ? (
                <>
                  Made by {t.createdBy.name}
                  {t.createdBy.role ? ` (now ${t.createdBy.role})` : ", no longer a member"}.{" "}
                </>
              ) : null}
              {t.can.length > 0
                ? `${t.createdBy ? "Can" : `At most (as ${t.asRole === "admin" || t.asRole === "owner" ? "an" : "a"} ${t.asRole}), can`} ${t.can.join("; ")}.`
                : t.createdBy
                  ? "Can do nothing: it stopped working when its creator left."
                  : "Can do nothing in any organization now."}
            </div>
          </div>
          {revoke(t)}
        </li>
      ))}
    </ul>
  );
}
