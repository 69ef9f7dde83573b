// The command `sentry-cli monitors run` wraps in the overrun case. It first waits (polling) until
// Errata shows the CLI's in_progress check-in: under the test clock a check-in takes the clock's
// time when it is digested, so moving the clock before that would start the run after the jump
// and it could never overrun. Then it moves the clock past the max runtime and waits until Errata
// reports the check-in as timed out, and only then finishes: a job that overran its max runtime.
import fs from "node:fs";

const { CLOCK_FILE, ERRATA_URL, ERRATA_TOKEN, MONITOR } = process.env;
const deadline = Date.now() + 90_000;

async function latestStatus() {
  const res = await fetch(`${ERRATA_URL}/api/0/organizations/acme/monitors/${MONITOR}/checkins/`, {
    headers: { authorization: `Bearer ${ERRATA_TOKEN}` },
  });
  const list = res.ok ? await res.json() : [];
  return list[0]?.status;
}

async function waitFor(status) {
  while (Date.now() < deadline) {
    if ((await latestStatus()) === status) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

if (!(await waitFor("in_progress"))) process.exit(8);
fs.writeFileSync(CLOCK_FILE, String(Number(fs.readFileSync(CLOCK_FILE, "utf8")) + 2 * 60_000 + 1000));
process.exit((await waitFor("timeout")) ? 0 : 9);
