/**
 * Signing in and calling a page's server action over HTTP, as the browser does (the action's id
 * from the build's manifest, the arguments in React's own encoding): for integration tests that
 * configure through the product rather than writing settings rows themselves.
 */
import { createRequire } from "node:module";
import { discoverActions, fill, type ServerAction } from "../security/route-table.js";
import { ROOT, type TestServer } from "./server.js";

const require = createRequire(import.meta.url);
const { encodeReply } = require("next/dist/compiled/react-server-dom-turbopack/client.edge.js") as {
  encodeReply(value: unknown): Promise<string | FormData>;
};

let actions: ServerAction[] | undefined;

/** The session cookie of a password sign-in. */
export async function signInCookie(server: TestServer, email: string, password: string): Promise<string> {
  const res = await fetch(`${server.url}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: server.url },
    body: JSON.stringify({ email, password }),
  });
  if (res.status !== 200) throw new Error(`sign-in of ${email} answered ${res.status}: ${await res.text()}`);
  return res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
}

/** Calls a form action (`(prev, data)`) with these fields; the answer's text (React's flight format). */
export async function runFormAction(
  server: TestServer,
  cookie: string,
  name: string,
  values: Record<string, string>,
  fields: Record<string, string>,
): Promise<{ status: number; body: string; redirect: string | null }> {
  actions ??= discoverActions(ROOT);
  const action = actions.find((a) => a.name === name);
  if (!action) throw new Error(`no server action ${name}`);
  const data = new FormData();
  for (const [k, v] of Object.entries(fields)) data.set(k, v);
  const encoded = await encodeReply([{ status: "idle" }, data]);
  const headers: Record<string, string> = { cookie, origin: server.url, "next-action": action.id, accept: "text/x-component" };
  if (typeof encoded === "string") headers["content-type"] = "text/plain;charset=UTF-8";
  const res = await fetch(`${server.url}${fill(action.pagePattern, values)}`, {
    method: "POST",
    headers,
    body: encoded,
    redirect: "manual",
  });
  return { status: res.status, body: await res.text(), redirect: res.headers.get("x-action-redirect") };
}
