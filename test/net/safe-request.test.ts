/**
 * The outbound policy against a real HTTP server on 127.0.0.1: private targets are refused unless
 * allowed, the check is made on the address the socket connects to (a resolver that answers
 * differently is honoured, so rebinding cannot pass), and every redirect hop is checked again.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addressAllowed, guardedLookup, isPublicAddress, OutboundError, type Resolver, safeRequest } from "../../src/net/safe-request";

let server: http.Server;
let base: string;
let hits = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits++;
    if (req.url === "/big") return res.end(Buffer.alloc(100_000, 97));
    if (req.url?.startsWith("/redirect-to-")) {
      res.writeHead(302, { location: decodeURIComponent(req.url.slice("/redirect-to-".length)) });
      return res.end();
    }
    if (req.url === "/hang") return; // never answers
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => res.end(JSON.stringify({ method: req.method, url: req.url, body })));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const closed = { allowPrivate: false, allowHosts: [] };
const open = { allowPrivate: true, allowHosts: [] };
const limits = { timeoutMs: 5000, maxBodyBytes: 10_000 };

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(OutboundError);
    return (err as OutboundError).code;
  }
  throw new Error("expected the request to be refused");
}

describe("addresses", () => {
  it("tells public from loopback, private, link-local, metadata and mapped addresses", () => {
    for (const a of ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111"]) expect(isPublicAddress(a), a).toBe(true);
    for (const a of [
      "127.0.0.1",
      "10.1.2.3",
      "172.20.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "::1",
      "fe80::1",
      "fd00:ec2::254",
      "::ffff:127.0.0.1",
      "::ffff:10.0.0.1",
      "224.0.0.1",
    ]) {
      expect(isPublicAddress(a), a).toBe(false);
    }
  });

  it("lets an allow list name hosts or ranges", () => {
    const policy = { allowPrivate: false, allowHosts: ["hooks.internal", "10.0.0.0/8", "192.168.5.5"] };
    expect(addressAllowed(policy, "hooks.internal", "172.16.0.9")).toBe(true);
    expect(addressAllowed(policy, "other.internal", "10.9.9.9")).toBe(true);
    expect(addressAllowed(policy, "x", "192.168.5.5")).toBe(true);
    expect(addressAllowed(policy, "x", "192.168.5.6")).toBe(false);
  });

  it("passes a public answer through the connect-time lookup and refuses a mixed one", async () => {
    const resolver: Resolver = async (h) =>
      h === "public.test"
        ? [{ address: "93.184.216.34", family: 4 }]
        : [
            { address: "93.184.216.34", family: 4 },
            { address: "127.0.0.1", family: 4 },
          ];
    const lookup = guardedLookup(closed, resolver);
    const ask = (host: string) =>
      new Promise<{ err: unknown; address: unknown }>((r) => lookup(host, {}, (err, address) => r({ err, address })));
    expect(await ask("public.test")).toEqual({ err: null, address: "93.184.216.34" });
    expect(((await ask("mixed.test")).err as OutboundError).code).toBe("forbidden_address");
  });
});

describe("safeRequest against a real server", () => {
  it("refuses a loopback literal by default and sends nothing", async () => {
    const before = hits;
    expect(await refusal(safeRequest(`${base}/x`, limits, closed))).toBe("forbidden_address");
    expect(hits).toBe(before);
  });

  it("refuses a name that resolves to loopback at connect time (rebinding)", async () => {
    const port = new URL(base).port;
    const before = hits;
    // The name looks harmless; the resolver the socket uses answers 127.0.0.1.
    const rebinding: Resolver = async () => [{ address: "127.0.0.1", family: 4 }];
    expect(await refusal(safeRequest(`http://hooks.example.com:${port}/x`, limits, closed, rebinding))).toBe("forbidden_address");
    expect(await refusal(safeRequest(`http://localhost:${port}/x`, limits, closed))).toBe("forbidden_address");
    expect(hits).toBe(before);
  });

  it("sends when the installation allows private targets, body and method intact", async () => {
    const res = await safeRequest(
      `${base}/echo`,
      { ...limits, method: "POST", body: "hello", headers: { "content-type": "text/plain" } },
      open,
    );
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body.toString())).toEqual({ method: "POST", url: "/echo", body: "hello" });
  });

  it("allows a host on the allow list", async () => {
    const port = new URL(base).port;
    const res = await safeRequest(`http://localhost:${port}/named`, limits, { allowPrivate: false, allowHosts: ["localhost"] });
    expect(res.status).toBe(200);
  });

  it("checks every redirect hop", async () => {
    const port = new URL(base).port;
    const policy = { allowPrivate: false, allowHosts: ["localhost"] };
    // localhost is allowed; its redirect to the literal 127.0.0.1 is not.
    const target = encodeURIComponent(`http://127.0.0.1:${port}/secret`);
    expect(await refusal(safeRequest(`http://localhost:${port}/redirect-to-${target}`, limits, policy))).toBe("forbidden_address");
    const fine = encodeURIComponent(`http://localhost:${port}/landed`);
    const res = await safeRequest(`http://localhost:${port}/redirect-to-${fine}`, { ...limits, method: "POST", body: "x" }, policy);
    expect(JSON.parse(res.body.toString())).toMatchObject({ method: "GET", url: "/landed" });
    expect(res.finalUrl).toBe(`http://localhost:${port}/landed`);
  });

  it("stops after too many redirects", async () => {
    let url = `${base}/end`;
    for (let i = 0; i < 3; i++) url = `${base}/redirect-to-${encodeURIComponent(url)}`;
    expect(await refusal(safeRequest(url, { ...limits, maxRedirects: 2 }, open))).toBe("too_many_redirects");
  });

  it("caps the body and times out", async () => {
    const res = await safeRequest(`${base}/big`, limits, open);
    expect(res.body.length).toBe(10_000);
    expect(res.truncated).toBe(true);
    expect(await refusal(safeRequest(`${base}/hang`, { ...limits, timeoutMs: 200 }, open))).toBe("timeout");
  });

  it("rejects URLs that are not http(s)", async () => {
    expect(await refusal(safeRequest("file:///etc/passwd", limits, open))).toBe("invalid_url");
    expect(await refusal(safeRequest("not a url", limits, open))).toBe("invalid_url");
  });
});
