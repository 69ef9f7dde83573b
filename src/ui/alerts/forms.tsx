"use client";

import { type ReactNode, useActionState, useState } from "react";
import { type FormAction, FormStatus, IDLE, submitWithoutReset, useResetOnSuccess } from "../kit/settings-form";

/** One button posting hidden values to a Server Action, its outcome beside it (test, retry, delete…). */
export function ActionButton({
  action,
  values,
  label,
  ariaLabel,
  testId,
  danger,
}: {
  action: FormAction;
  values: Record<string, string>;
  label: string;
  ariaLabel?: string;
  testId?: string;
  danger?: boolean;
}) {
  const [state, formAction, pending] = useActionState(action, IDLE);
  return (
    <form
      action={formAction}
      onSubmit={submitWithoutReset(formAction)}
      className="flex min-w-0 flex-wrap items-center gap-2"
      data-testid={testId}
    >
      {Object.entries(values).map(([k, v]) => (
        <input key={k} type="hidden" name={k} value={v} />
      ))}
      <button
        type="submit"
        className={`btn btn-sm ${danger ? "text-danger" : ""}`}
        disabled={pending}
        aria-busy={pending || undefined}
        aria-label={ariaLabel}
      >
        {pending ? <span className="spinner" aria-hidden="true" /> : null}
        {label}
      </button>
      <span className="min-w-0 break-words" data-testid={testId ? `${testId}-result` : undefined}>
        <FormStatus state={state} />
      </span>
    </form>
  );
}

const KIND_HELP: Record<string, string> = {
  webhook: "Generic JSON, versioned and signed (X-Errata-Signature) when a secret is set.",
  slack: "A Slack incoming-webhook URL (Block Kit).",
  discord: "A Discord channel webhook URL (embeds).",
  teams: "A Microsoft Teams workflow / incoming-webhook URL (Adaptive Card).",
  mattermost: "A Mattermost incoming-webhook URL.",
  googlechat: "A Google Chat space webhook URL.",
  ntfy: "The topic URL, e.g. https://ntfy.sh/my-alerts.",
  telegram: "A bot token and the chat id it posts to.",
  email: "Addresses one per line; empty sends to the project's members who did not opt out.",
  pagerduty: "PagerDuty Events API v2: one incident per issue, resolved when the issue is resolved.",
  opsgenie: "Opsgenie Alert API: one alert per issue, closed when the issue is resolved.",
};

/** The new-channel form: the fields follow the chosen kind. */
export function NewChannelForm({ action, hidden }: { action: FormAction; hidden: Record<string, string> }) {
  const [state, formAction, pending] = useActionState(action, IDLE);
  const [kind, setKind] = useState("slack");
  const form = useResetOnSuccess(state, () => setKind("slack"));
  const errors = state.status === "error" ? Object.entries(state.fields) : [];
  return (
    <form
      ref={form}
      action={formAction}
      onSubmit={submitWithoutReset(formAction)}
      className="flex flex-col gap-3"
      data-testid="new-channel"
    >
      {Object.entries(hidden).map(([k, v]) => (
        <input key={k} type="hidden" name={k} value={v} />
      ))}
      <Row id="channel-kind" label="Kind" hint={KIND_HELP[kind]}>
        <select id="channel-kind" name="kind" className="input" value={kind} onChange={(e) => setKind(e.target.value)}>
          {Object.keys(KIND_HELP).map((k) => (
            <option key={k} value={k}>
              {k === "webhook" ? "generic webhook" : k}
            </option>
          ))}
        </select>
      </Row>
      <Row id="channel-name" label="Name">
        <input id="channel-name" name="name" className="input" required maxLength={100} placeholder="#ops-alerts" />
      </Row>
      {kind === "email" ? (
        <Row id="channel-to" label="Recipients">
          <textarea id="channel-to" name="to" className="input h-auto py-1.5" rows={2} placeholder="oncall@example.com" />
        </Row>
      ) : kind === "telegram" ? (
        <>
          <Row id="channel-bot" label="Bot token">
            <input id="channel-bot" name="botToken" className="input font-mono" required placeholder="123456:ABC-def…" />
          </Row>
          <Row id="channel-chat" label="Chat id">
            <input id="channel-chat" name="chatId" className="input font-mono" required placeholder="-1001234567890" />
          </Row>
        </>
      ) : kind === "pagerduty" || kind === "opsgenie" ? (
        <>
          <Row
            id="channel-key"
            label={kind === "pagerduty" ? "Integration key" : "API key"}
            hint={kind === "pagerduty" ? "The service's Events API v2 integration (routing) key." : "The API integration's key."}
          >
            <input
              id="channel-key"
              name={kind === "pagerduty" ? "routingKey" : "apiKey"}
              type="password"
              className="input font-mono"
              required
              autoComplete="off"
            />
          </Row>
          <Row
            id="channel-url"
            label="API URL"
            hint={
              kind === "pagerduty"
                ? "Leave empty for events.pagerduty.com."
                : "Leave empty for api.opsgenie.com; EU: https://api.eu.opsgenie.com"
            }
          >
            <input id="channel-url" name="url" type="url" className="input font-mono" placeholder="https://…" />
          </Row>
        </>
      ) : (
        <Row id="channel-url" label="Webhook URL">
          <input id="channel-url" name="url" type="url" className="input font-mono" required placeholder="https://…" />
        </Row>
      )}
      {kind === "webhook" ? (
        <Row id="channel-secret" label="Signing secret" hint="Optional, at least 8 characters.">
          <input id="channel-secret" name="secret" type="password" className="input font-mono" autoComplete="off" />
        </Row>
      ) : null}
      <div className="flex items-center gap-3">
        <button type="submit" className="btn btn-primary" disabled={pending}>
          Add channel
        </button>
        <FormStatus state={state} />
      </div>
      {errors.length > 0 ? (
        <ul role="alert" className="rounded-md border border-danger px-3 py-2 text-[12.5px] text-danger">
          {errors.map(([f, m]) => (
            <li key={f}>
              <span className="font-medium">{f}</span>: {m}
            </li>
          ))}
        </ul>
      ) : null}
    </form>
  );
}

function Row({ id, label, hint, children }: { id: string; label: string; hint?: string; children: ReactNode }) {
  return (
    <div className="grid gap-1 sm:grid-cols-[180px_minmax(0,1fr)] sm:gap-4">
      <div>
        <label htmlFor={id} className="text-[13px] font-medium">
          {label}
        </label>
        {hint ? <p className="text-[12px] text-fg-dim">{hint}</p> : null}
      </div>
      <div className="min-w-0 max-w-[520px]">{children}</div>
    </div>
  );
}
