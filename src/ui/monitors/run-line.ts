/** The `sentry-cli monitors run` line for a monitor (the form shows it live, the monitor page for good). */

/** The command line that wraps a job in check-ins (in_progress, then ok or error with its duration). */
export function monitorRunLine(slug: string, environment: string): string {
  const env = environment.trim() ? ` -e ${shellWord(environment.trim())}` : "";
  return `SENTRY_DSN=<your project's DSN> sentry-cli monitors run${env} ${shellWord(slug || "<slug>")} -- <your command>`;
}

function shellWord(s: string): string {
  return /^[\w.@/-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`;
}
