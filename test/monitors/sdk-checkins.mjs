// Child process for monitors-http.test.ts: the official @sentry/node SDK sends check-ins with
// monitor_config through withMonitor (a job that succeeds, one that throws) and captureCheckIn.
import * as Sentry from "@sentry/node";

// Every answer is checked: a check-in the server refused (or never answered) fails this script
// with its status, instead of the test waiting for a check-in that was never accepted.
const refused = [];
const transport = (options) => {
  const inner = Sentry.makeNodeTransport(options);
  return {
    ...inner,
    async send(envelope) {
      try {
        const res = await inner.send(envelope);
        const code = res?.statusCode;
        if (code !== undefined && (code < 200 || code > 299)) refused.push(`HTTP ${code}`);
        return res;
      } catch (err) {
        refused.push(String(err));
        throw err;
      }
    },
  };
};
Sentry.init({ dsn: process.env.SENTRY_DSN, release: "1.2.3", environment: "prod", defaultIntegrations: false, transport });
await Sentry.withMonitor("sdk-job", async () => 42, {
  schedule: { type: "crontab", value: "0 * * * *" },
  checkinMargin: 5,
  maxRuntime: 10,
  timezone: "America/New_York",
  failureIssueThreshold: 1,
  recoveryThreshold: 1,
});
try {
  await Sentry.withMonitor(
    "sdk-job-fail",
    async () => {
      throw new Error("boom");
    },
    { schedule: { type: "interval", value: 10, unit: "minute" } },
  );
} catch {
  // expected: withMonitor rethrows after the error check-in
}
const id = Sentry.captureCheckIn(
  { monitorSlug: "manual-job", status: "in_progress" },
  { schedule: { type: "crontab", value: "30 2 * * *" }, checkinMargin: 1, maxRuntime: 30 },
);
Sentry.captureCheckIn({ checkInId: id, monitorSlug: "manual-job", status: "ok", duration: 1.5 });
// flush returns once the queue drains; a short bound would let a loaded CI machine exit with a
// check-in still unsent (a test that waits for time, not for the condition).
if (!(await Sentry.flush(60_000))) throw new Error("check-ins not sent within 60 s");
if (refused.length > 0) throw new Error(`check-in envelopes not accepted: ${refused.join(", ")}`);
