import type { SamlSettingsView, SamlTestResult } from "@/server/saml/settings";
import { CopyButton } from "../kit/copy-button";
import { absoluteTime } from "../kit/format";

/** A value to copy into the identity provider's form. */
export function CopyRow({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <div className="flex min-w-0 flex-wrap items-center gap-x-2 gap-y-1 text-[13px]">
      <span className="w-[150px] shrink-0 text-fg-muted">{label}</span>
      <code className="min-w-0 rounded bg-muted px-1.5 py-0.5 font-mono text-[12px] break-all" data-testid={testId}>
        {value}
      </code>
      <CopyButton text={value} />
    </div>
  );
}

/** What to enter at the identity provider, and the certificates it signs with now. */
export function SamlServiceProvider({ settings, now }: { settings: SamlSettingsView; now: number }) {
  return (
    <div className="flex flex-col gap-2">
      <CopyRow label="ACS URL" value={settings.sp.acsUrl} testId="saml-acs-url" />
      <CopyRow label="Entity id (audience)" value={settings.sp.entityId} testId="saml-entity-id" />
      <CopyRow label="SP metadata" value={settings.sp.metadataUrl} />
      {settings.idp.certificates.length ? (
        <ul className="mt-1 flex flex-col gap-1 text-[12.5px]" data-testid="saml-certificates">
          {settings.idp.certificates.map((c) => (
            <li key={c.fingerprint} className="min-w-0">
              <span className="text-fg-muted">IdP certificate </span>
              <span className="font-mono text-[11.5px] break-all">{c.fingerprint.slice(0, 47)}…</span>
              <span className={c.notAfter < now ? " text-danger" : " text-fg-muted"}>
                {" "}
                {c.notAfter < now ? "expired" : "valid until"} {absoluteTime(c.notAfter).slice(0, 10)}
              </span>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** What the identity provider asserted in the owner's test sign-in. */
export function SamlTestResultView({ result }: { result: SamlTestResult }) {
  const rows: [string, string][] = [
    ["NameID", result.nameId],
    ["NameID format", result.nameIdFormat ?? "—"],
    ["Issuer", result.issuer],
    ["Email (mapped)", result.email ?? "none: map the email attribute"],
    ["Name (mapped)", result.name ?? "none"],
    ["Groups (mapped)", result.groups.length ? result.groups.join(", ") : "none"],
  ];
  return (
    <div id="saml-test" className="mt-3 rounded-md border border-border bg-subtle px-3 py-2" data-testid="saml-test-result">
      <h3 className="text-[13px] font-semibold">The identity provider asserted</h3>
      <dl className="mt-2 grid grid-cols-1 gap-x-4 gap-y-1 text-[12.5px] sm:grid-cols-[160px_1fr]">
        {rows.map(([k, v]) => (
          <div key={k} className="contents">
            <dt className="text-fg-muted">{k}</dt>
            <dd className="min-w-0 font-mono text-[12px] break-all">{v}</dd>
          </div>
        ))}
      </dl>
      {Object.keys(result.attributes).length ? (
        <>
          <h4 className="mt-3 text-[12px] font-semibold text-fg-muted">All attributes</h4>
          <dl className="mt-1 grid grid-cols-1 gap-x-4 gap-y-1 text-[12px] sm:grid-cols-[minmax(0,320px)_1fr]">
            {Object.entries(result.attributes).map(([k, v]) => (
              <div key={k} className="contents">
                <dt className="min-w-0 font-mono break-all text-fg-muted">{k}</dt>
                <dd className="min-w-0 font-mono break-all">{v.join(", ")}</dd>
              </div>
            ))}
          </dl>
        </>
      ) : null}
    </div>
  );
}
