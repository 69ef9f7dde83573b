"use client";

import { useActionState } from "react";
import type { ScimTokenView } from "@/server/scim/token";
import { CopyButton } from "../kit/copy-button";
import { type FormAction, type FormResult, FormStatus, IDLE, submitWithoutReset } from "../kit/settings-form";

type SecretResult = FormResult & { secret?: string };
type SecretAction = (prev: SecretResult, data: FormData) => Promise<SecretResult>;

/** Makes (or replaces) the SCIM token and shows it once; revokes it. */
export function ScimTokenForms({
  rotate,
  revoke,
  org,
  scim,
}: {
  rotate: SecretAction;
  revoke: FormAction;
  org: string;
  scim: ScimTokenView;
}) {
  const [state, rotateAction, pending] = useActionState(rotate, IDLE as SecretResult);
  const [revoked, revokeAction, revoking] = useActionState(revoke, IDLE);
  if (!scim.canEdit) return null;
  return (
    <div className="flex flex-col gap-3">
      <div className="flex flex-wrap items-center gap-3">
        <form action={rotateAction} onSubmit={submitWithoutReset(rotateAction)} data-testid="scim-rotate">
          <input type="hidden" name="org" value={org} />
          <button type="submit" className="btn btn-primary" disabled={pending}>
            {scim.exists ? "Replace token" : "Make SCIM token"}
          </button>
        </form>
        {scim.exists ? (
          <form action={revokeAction} data-testid="scim-revoke">
            <input type="hidden" name="org" value={org} />
            <button type="submit" className="btn text-danger" disabled={revoking}>
              Revoke
            </button>
          </form>
        ) : null}
        <FormStatus state={state.status === "idle" ? revoked : state} />
      </div>
      {state.status === "ok" && state.secret ? (
        <div className="flex flex-wrap items-center gap-2 rounded-md border border-border bg-subtle px-3 py-2" data-testid="scim-secret">
          <code className="min-w-0 flex-1 font-mono text-[12px] break-all">{state.secret}</code>
          <CopyButton text={state.secret} label="Copy token" />
          <span className="w-full text-[12px] text-fg-dim">
            Shown once: it is stored only as a hash. Enter it at the provider as the API token.
          </span>
        </div>
      ) : null}
    </div>
  );
}
