// The command `sentry-cli monitors run` wraps in the overrun case: it moves the test clock past the
// monitor's max runtime, then waits (polling, no fixed sleep) until Errata reports the check-in as
// timed out, and only then finishes — a job that overran its max runtime.
import fs from "node:fs";

const { CLOCK_FILE, ERRATA_URL, ERRATA_TOKEN, MONITOR } = process.env;
fs.writeFileSync(CLOCK_FILE, String(Number(fs.readFileSync(CLOCK_FILE, "utf8")) + 2 * 60_000 + 1000));
const deadline = Date.now() + 90_000;
while (Date.now() < deadline) {
  const res = await fetch(`${ERRATA_URL}/api/0/organizations/acme/monitors/${MONITOR}/checkins/`, {
    headers: { authorization: `Bearer ${ERRATA_TOKEN}` },
  });
  const list = res.ok ? await res.json() : [];
  if (list[0]?.status === "timeout") process.exit(0);
  await new Promise((r) => setTimeout(r, 100));
}
process.exit(9);
