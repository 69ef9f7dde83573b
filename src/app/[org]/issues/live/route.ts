/**
 * Server-sent events for the stream: `event: changes` with {updated, created, lastSeen} whenever
 * issues of the org (or one project) saw events after `since`. One cheap indexed max(last_seen)
 * query per tick; the count runs only when that moved. A comment every 15 s keeps proxies from
 * closing the connection; the stream ends with the client (or after an hour; the browser reconnects),
 * and as soon as the session ends (sign-out, password change, removal from the org).
 */
import { app } from "@/server/app-context";

export const dynamic = "force-dynamic";

const TICK_MS = 2000;
const KEEPALIVE_MS = 15_000;
const MAX_MS = 3_600_000;

export async function GET(req: Request, ctx: { params: Promise<{ org: string }> }): Promise<Response> {
  const { org } = await ctx.params;
  const services = app();
  const viewer = await services.session.viewerFromHeaders(req.headers);
  if (!viewer) return Response.json({ error: { code: "unauthenticated", message: "Sign in first." } }, { status: 401 });
  const url = new URL(req.url);
  const since = Number(url.searchParams.get("since"));
  const project = url.searchParams.get("project") ?? undefined;
  if (!Number.isSafeInteger(since) || since < 0)
    return Response.json({ error: { code: "validation_failed", message: "since: epoch milliseconds" } }, { status: 400 });
  try {
    // Authorization and a first answer before the stream opens (a 404 rather than an empty stream).
    await services.issueStream.changesSince(viewer, org, { since, project });
  } catch (err) {
    const code = (err as { code?: string }).code;
    return Response.json(
      { error: { code: code ?? "internal_error" } },
      { status: code === "not_found" ? 404 : code === "forbidden" ? 403 : 500 },
    );
  }

  const encoder = new TextEncoder();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const started = Date.now();
      let lastSeen = since;
      let lastSent = "";
      let lastWrite = Date.now();
      const write = (s: string) => {
        if (closed) return;
        controller.enqueue(encoder.encode(s));
        lastWrite = Date.now();
      };
      const finish = () => {
        if (closed) return;
        closed = true;
        clearTimeout(timer);
        try {
          controller.close();
        } catch {
          // already closed by the client
        }
      };
      req.signal.addEventListener("abort", finish);
      write("retry: 3000\n\n");
      const tick = async () => {
        if (closed) return;
        try {
          // The session is checked again on every tick: a signed-out or revoked session (or a
          // member removed from the org) must not keep receiving the org's activity.
          const still = await services.session.viewerFromHeaders(req.headers);
          if (!still || still.userId !== viewer.userId) return finish();
          const c = await services.issueStream.changesSince(viewer, org, { since, project });
          const payload = JSON.stringify(c);
          if (c.lastSeen !== lastSeen || payload !== lastSent) {
            lastSeen = c.lastSeen;
            lastSent = payload;
            if (c.updated > 0) write(`event: changes\ndata: ${payload}\n\n`);
          }
          if (Date.now() - lastWrite > KEEPALIVE_MS) write(": keepalive\n\n");
        } catch (err) {
          const code = (err as { code?: string }).code;
          if (code === "not_found" || code === "forbidden") return finish();
          // Any other failed poll (database busy) is retried at the next tick.
        }
        if (Date.now() - started > MAX_MS) return finish();
        timer = setTimeout(tick, TICK_MS);
      };
      void tick();
    },
    cancel() {
      closed = true;
      clearTimeout(timer);
    },
  });
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      // no-transform: compression middleware must not buffer the stream.
      "cache-control": "no-cache, no-transform",
      "x-accel-buffering": "no",
    },
  });
}
