import { notFound } from "next/navigation";
import { services } from "../../_lib/server";

// A page that fails on purpose (only with ERRATA_TEST_ROUTES=true) so tests can check that a
// thrown error shows Errata's own error page with a request id, not the framework's fallback.
export default async function ThrowPage() {
  const s = await services();
  if (!s.flags.testRoutes) notFound();
  throw new Error("Deliberate failure from /debug/throw");
}
