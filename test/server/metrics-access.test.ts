/**
 * Issue 14: /metrics names per-project volumes, so it is not public. With METRICS_TOKEN it answers
 * only `Authorization: Bearer <token>`; without one, only loopback clients (a request from another
 * address of this machine gets 403). Real server; SQLite (nothing here touches storage).
 */
import os from "node:os";
import { afterAll, describe, expect, test } from "vitest";
import { startServer, type TestServer } from "../helpers/server.js";

const TOKEN = "metrics-token-0123456789abcdef";

/** An IPv4 address of this machine other than loopback, if it has one. */
function externalAddress(): string | undefined {
  for (const list of Object.values(os.networkInterfaces())) {
    for (const a of list ?? []) if (a.family === "IPv4" && !a.internal) return a.address;
  }
  return undefined;
}

describe("/metrics access", () => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.stop();
  });

  test("METRICS_TOKEN set: 401 without or with a wrong bearer token, 200 with it", async () => {
    const server = await startServer({ env: { METRICS_TOKEN: TOKEN } });
    servers.push(server);
    const none = await fetch(`${server.url}/metrics`);
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(((await none.json()) as { error: { code: string } }).error.code).toBe("unauthenticated");
    expect((await fetch(`${server.url}/metrics`, { headers: { authorization: "Bearer wrong-token-0123456789" } })).status).toBe(401);
    expect((await fetch(`${server.url}/metrics`, { headers: { authorization: `Basic ${TOKEN}` } })).status).toBe(401);
    const ok = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain("errata_");
    // The other health endpoints stay open (load balancers, orchestrators).
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  test("no token: loopback clients only", async () => {
    const server = await startServer({ env: { HOST: "0.0.0.0" } });
    servers.push(server);
    const port = new URL(server.url).port;
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(200);
    const external = externalAddress();
    if (!external) return; // a machine with loopback only: nothing else to connect from
    const r = await fetch(`http://${external}:${port}/metrics`);
    expect(r.status).toBe(403);
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe("forbidden");
    expect((await fetch(`http://${external}:${port}/healthz`)).status).toBe(200);
  });
});
