/**
 * Events for the triage browser tests and the screenshots: a realistic mix (checkout crash with
 * users, request, breadcrumbs and contexts; a warning; deploy skew; a source-mapped browser error
 * whose minified frames stay one click away), sent through the real store endpoint.
 */
import { randomUUID } from "node:crypto";
import { sleep, type TestServer } from "../../test/helpers/server.js";
import { buildBundle, capture, RawUploader, sendEvent as sendOnce, type Tenant } from "../../test/sourcemaps/helpers.js";

/**
 * Sends an event through the store endpoint; a 503 (ingest's backpressure on a loaded machine)
 * is retried as an SDK would, a few times.
 */
export async function sendEvent(server: TestServer, dsn: string, event: Record<string, unknown>): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await sendOnce(server, dsn, event);
    } catch (err) {
      if (attempt >= 5 || !/store failed: 503/.test((err as Error).message)) throw err;
      await sleep(200 * attempt);
    }
  }
}

export const PASSWORD = "correct horse battery";

/** An org with an owner and a project (DSN) and an upload token, through the operator CLI. */
export async function createTriageTenant(
  server: TestServer,
  org = "acme",
  project = "web",
  email = `owner-${org}@example.com`,
): Promise<Tenant & { email: string }> {
  await server.cli("user", "create", "--email", email, "--password", PASSWORD, "--org", org);
  const dsn = await server.cli("project", "create", "--org", org, "--name", project, "--platform", "javascript");
  const token = await server.cli("token", "create", "--email", email, "--scopes", "project:releases,project:read,event:read,event:write");
  return { org, project, dsn, token, readOnlyToken: token, email };
}

const now = () => Date.now() / 1000;

function frame(
  fn: string,
  file: string,
  line: number,
  inApp: boolean,
  context?: { pre: string[]; line: string; post: string[] },
  vars?: Record<string, unknown>,
) {
  return {
    function: fn,
    filename: file,
    abs_path: file,
    lineno: line,
    colno: 14,
    in_app: inApp,
    ...(context ? { pre_context: context.pre, context_line: context.line, post_context: context.post } : {}),
    ...(vars ? { vars } : {}),
  };
}

export interface CheckoutOptions {
  message?: string;
  environment?: string;
  release?: string;
  user?: number;
  level?: string;
  browser?: string;
}

/** The hero: a TypeError in checkout with everything around it. */
export function checkoutEvent(o: CheckoutOptions = {}): Record<string, unknown> {
  const user = o.user ?? 1042;
  return {
    event_id: randomUUID().replace(/-/g, ""),
    timestamp: now(),
    platform: "javascript",
    level: o.level ?? "error",
    environment: o.environment ?? "production",
    release: o.release ?? "web@1.4.2",
    server_name: "web-7f9c",
    tags: { region: "eu-west-1", browser: o.browser ?? "Chrome 124", "payment.provider": "stripe" },
    user: { id: String(user), email: `user${user}@example.com`, ip_address: "203.0.113.7" },
    contexts: {
      browser: { name: (o.browser ?? "Chrome 124").split(" ")[0], version: (o.browser ?? "Chrome 124").split(" ")[1] ?? "" },
      os: { name: "macOS", version: "14.4" },
      runtime: { name: "node", version: "20.20.2" },
      trace: { trace_id: "4bf92f3577b34da6a3ce929d0e0e4736", span_id: "00f067aa0ba902b7" },
    },
    request: {
      method: "POST",
      url: "https://shop.example.com/api/cart/8812/checkout",
      query_string: "coupon=SPRING",
      headers: { "Content-Type": "application/json", "User-Agent": "Mozilla/5.0 (Macintosh) Chrome/124", Accept: "application/json" },
      data: { cart: 8812, items: 2 },
    },
    breadcrumbs: {
      values: [
        { timestamp: now() - 9, category: "navigation", message: "/cart → /checkout", level: "info" },
        { timestamp: now() - 6, category: "ui.click", message: "button#pay-now", level: "info" },
        {
          timestamp: now() - 4,
          category: "http",
          type: "http",
          data: { method: "GET", url: "/api/cart/8812", status_code: 200 },
          level: "info",
        },
        { timestamp: now() - 2, category: "console", message: "price cache miss for SKU-77", level: "warning" },
      ],
    },
    exception: {
      values: [
        {
          type: "TypeError",
          value: o.message ?? "Cannot read properties of undefined (reading 'total')",
          mechanism: { type: "onunhandledrejection", handled: false },
          stacktrace: {
            frames: [
              frame("processTicksAndRejections", "node:internal/process/task_queues", 95, false),
              frame("Router.handle", "node_modules/express/lib/router/index.js", 284, false),
              frame("Layer.handle", "node_modules/express/lib/router/layer.js", 95, false),
              frame(
                "handleCheckout",
                "src/routes/checkout.ts",
                41,
                true,
                {
                  pre: ["export async function handleCheckout(req, res) {", "  const cart = await loadCart(req.params.id);"],
                  line: "  const total = computeTotal(cart);",
                  post: ["  res.json({ total });", "}"],
                },
                { cart: "{ id: 8812, items: [2 items] }", req: "<Request POST /api/cart/8812/checkout>" },
              ),
              frame(
                "computeTotal",
                "src/lib/pricing.ts",
                17,
                true,
                {
                  pre: ["export function computeTotal(cart) {", "  let sum = 0;", "  for (const item of cart.items) {"],
                  line: "    sum += item.price.total * item.qty;",
                  post: ["  }", "  return sum;", "}"],
                },
                { item: "{ sku: 'SKU-77', qty: 2, price: undefined }", sum: 25 },
              ),
            ],
          },
        },
      ],
    },
  };
}

export function warningEvent(message = "Payment provider latency above 2s"): Record<string, unknown> {
  return {
    event_id: randomUUID().replace(/-/g, ""),
    timestamp: now(),
    platform: "node",
    level: "warning",
    environment: "staging",
    release: "web@1.4.1",
    message: { formatted: message },
    tags: { region: "us-east-1", "payment.provider": "adyen" },
  };
}

export function chunkLoadEvent(): Record<string, unknown> {
  return {
    event_id: randomUUID().replace(/-/g, ""),
    timestamp: now(),
    platform: "javascript",
    level: "error",
    environment: "production",
    release: "web@1.4.2",
    exception: {
      values: [
        {
          type: "ChunkLoadError",
          value: "Loading chunk 7781 failed. (error: https://shop.example.com/_next/static/chunks/7781-0b5e9a.js)",
          mechanism: { type: "onunhandledrejection", handled: false },
          stacktrace: {
            frames: [frame("__webpack_require__.f.j", "https://shop.example.com/_next/static/chunks/webpack-2b3c.js", 1, false)],
          },
        },
      ],
    },
    contexts: { browser: { name: "Safari", version: "17.4" } },
  };
}

export function simpleError(type: string, value: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    event_id: randomUUID().replace(/-/g, ""),
    timestamp: now(),
    platform: "javascript",
    level: "error",
    environment: "production",
    exception: { values: [{ type, value, stacktrace: { frames: [frame("main", "src/index.ts", 10, true)] } }] },
    ...extra,
  };
}

/**
 * A browser error in a minified bundle whose source map is uploaded first (release bundle via the
 * chunk-upload/assemble routes): the stored frames are the original ones, the minified ones stay
 * in `raw_stacktrace`. Returns the event id.
 */
export async function sendSourceMappedEvent(
  server: TestServer,
  t: Tenant,
  release = "web@3.0.0",
  message = "thrower broke the checkout",
): Promise<string> {
  const bundle = buildBundle([
    { url: "~/assets/app.js", type: "minified_source", content: capture("app.min.js.orig"), headers: { Sourcemap: "app.js.map" } },
    { url: "~/assets/app.js.map", type: "source_map", content: capture("app.min.js.map.orig") },
  ]);
  const { final } = await new RawUploader(server, t).upload(bundle, {}, `releases/${encodeURIComponent(release)}/assemble`);
  if (final.state !== "ok") throw new Error(`bundle upload failed: ${JSON.stringify(final)}`);
  const file = "http://localhost/assets/app.js";
  const f = (fn: string, colno: number) => ({ filename: file, abs_path: file, function: fn, lineno: 1, colno, in_app: true });
  return sendEvent(server, t.dsn, {
    event_id: randomUUID().replace(/-/g, ""),
    platform: "javascript",
    level: "error",
    timestamp: now(),
    release,
    environment: "production",
    exception: {
      values: [
        {
          type: "Error",
          value: message,
          stacktrace: { frames: [f("Object.?", 55), f("b", 51), f("a", 20)] },
          mechanism: { type: "onerror", handled: false },
        },
      ],
    },
  });
}

/** Sends a realistic mix; returns the event ids by name. */
export async function seedTriage(server: TestServer, t: Tenant): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  for (const [i, user] of [1042, 1043, 1044, 1042, 1045].entries()) {
    ids[`checkout${i}`] = await sendEvent(
      server,
      t.dsn,
      checkoutEvent({ user, browser: i % 2 ? "Firefox 125" : "Chrome 124", environment: i === 4 ? "staging" : "production" }),
    );
  }
  ids.warning = await sendEvent(server, t.dsn, warningEvent());
  ids.chunk = await sendEvent(server, t.dsn, chunkLoadEvent());
  ids.refund = await sendEvent(
    server,
    t.dsn,
    simpleError("RangeError", "Refund amount exceeds the captured amount", { release: "web@1.4.2", user: { id: "77" } }),
  );
  ids.auth = await sendEvent(
    server,
    t.dsn,
    simpleError("AuthError", "Session token expired while renewing", { environment: "staging", release: "web@1.4.1" }),
  );
  ids.sourcemapped = await sendSourceMappedEvent(server, t);
  return ids;
}
