/** Quiet outline badges for what Errata recognised about an issue (deploy skew, a React error code). */

const FLAG_TITLES: Record<string, string> = {
  "deploy-skew":
    "Stale clients after a deploy: a browser running the previous build asked for a chunk the new deploy no longer serves. Grouped per release. Next.js: set deploymentId so stale tabs reload.",
};

export function IssueFlagBadges({ flags, reactError }: { flags?: string[]; reactError?: number }) {
  if ((!flags || flags.length === 0) && reactError === undefined) return null;
  return (
    <span className="inline-flex flex-wrap items-center gap-1.5">
      {(flags ?? []).map((flag) => (
        <span key={flag} className="badge" title={FLAG_TITLES[flag] ?? flag} data-flag={flag}>
          {flag}
        </span>
      ))}
      {reactError !== undefined ? (
        <a
          className="badge hover:text-fg"
          href={`https://react.dev/errors/${reactError}`}
          target="_blank"
          rel="noreferrer"
          title="A minified React error, decoded from React's error-code table"
        >
          React #{reactError}
        </a>
      ) : null}
    </span>
  );
}
