/**
 * Outgoing HTTP(S) for webhooks and uptime checks, under the installation's outbound policy (SPEC §7).
 *
 * Why not `fetch`: the address a request may go to must be checked on the address the socket
 * actually connects to, not on a name resolved earlier, or a DNS answer that changes between the
 * check and the connect (rebinding) walks past the policy. `http.request` lets us hand in the
 * `lookup` it connects with, so the check and the connect see the same answer. Redirects are
 * followed by hand so that every hop goes through the same check, and bodies are read with a cap.
 */
import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import net from "node:net";

export type OutboundErrorCode = "forbidden_address" | "timeout" | "network" | "too_many_redirects" | "invalid_url";

export class OutboundError extends Error {
  constructor(
    readonly code: OutboundErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "OutboundError";
  }
}

export interface OutboundPolicy {
  /** Allow loopback, private, link-local and other non-public addresses (tests, intranets). */
  allowPrivate: boolean;
  /** Host names (exact, case-insensitive) or CIDR ranges that are allowed even when private. */
  allowHosts: string[];
  /** The settings that set this policy, named when it refuses an address (the operator's way out). */
  settings?: { allowPrivate: string; allowHosts: string };
}

/** " (allowed by X=true, or the host in Y)" for a refusal's message; "" when the policy names none. */
export function allowedBy(policy: OutboundPolicy): string {
  const s = policy.settings;
  return s ? `; ${s.allowPrivate}=true allows private addresses, or list the host in ${s.allowHosts}` : "";
}

/**
 * Whether the policy would refuse `raw` as it resolves now, checked before saving a target (a
 * webhook URL, an import source) so the operator hears it at once; the check that counts is still
 * the one on the address connected to. Resolves to the reason, or null when it is allowed or
 * cannot be told (not a URL, DNS failing: those are reported when it is used).
 */
export async function refusedTarget(raw: string, policy: OutboundPolicy, resolve: Resolver = systemResolver): Promise<string | null> {
  let url: URL;
  try {
    url = parseTarget(raw);
  } catch {
    return null;
  }
  if (policy.allowPrivate) return null;
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: Array<{ address: string }>;
  try {
    addresses = net.isIP(hostname) ? [{ address: hostname }] : await resolve(hostname);
  } catch {
    return null;
  }
  const denied = addresses.find((a) => !addressAllowed(policy, hostname, a.address));
  if (!denied) return null;
  const what = denied.address === hostname ? hostname : `${hostname} (${denied.address})`;
  return `${what} is a loopback, private or link-local address, which the outbound policy refuses${allowedBy(policy)}`;
}

export interface SafeRequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Whole request, redirects included. */
  timeoutMs: number;
  /** Response bodies are read up to this many bytes; the rest is dropped and `truncated` set. */
  maxBodyBytes: number;
  /** Redirect hops followed (each checked like the first request); 0 returns the 3xx as is. */
  maxRedirects?: number;
}

export interface SafeResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  truncated: boolean;
  finalUrl: string;
  elapsedMs: number;
}

/** The resolver the guard asks; replaceable so tests can answer with any address without DNS. */
export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

const systemResolver: Resolver = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

// Everything that is not the public internet: RFC 1918, CGNAT, loopback, link-local (cloud metadata
// lives at 169.254.169.254 and fd00:ec2::254), documentation, benchmarking, multicast and reserved.
const NON_PUBLIC_V4 = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const;
const NON_PUBLIC_V6 = [
  ["::", 128],
  ["::1", 128],
  ["64:ff9b::", 96],
  ["100::", 64],
  ["2001:db8::", 32],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const;

const nonPublic = new net.BlockList();
for (const [address, prefix] of NON_PUBLIC_V4) nonPublic.addSubnet(address, prefix, "ipv4");
for (const [address, prefix] of NON_PUBLIC_V6) nonPublic.addSubnet(address, prefix, "ipv6");

/** An IPv4 address written inside IPv6 (`::ffff:127.0.0.1`) is judged as the IPv4 address. */
function unmapped(address: string): { address: string; family: "ipv4" | "ipv6" } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return { address: mapped[1], family: "ipv4" };
  return { address, family: net.isIPv6(address) ? "ipv6" : "ipv4" };
}

export function isPublicAddress(address: string): boolean {
  const a = unmapped(address);
  if (!net.isIP(a.address)) return false;
  return !nonPublic.check(a.address, a.family);
}

function allowListFor(policy: OutboundPolicy): { names: Set<string>; ranges: net.BlockList } {
  const names = new Set<string>();
  const ranges = new net.BlockList();
  for (const entry of policy.allowHosts) {
    const [base, bits] = entry.trim().split("/");
    if (bits !== undefined && net.isIP(base)) ranges.addSubnet(base, Number(bits), net.isIPv6(base) ? "ipv6" : "ipv4");
    else if (net.isIP(base)) ranges.addAddress(base, net.isIPv6(base) ? "ipv6" : "ipv4");
    else if (base) names.add(base.toLowerCase());
  }
  return { names, ranges };
}

/** Whether the policy lets a request for `hostname` connect to `address`. */
export function addressAllowed(policy: OutboundPolicy, hostname: string, address: string): boolean {
  if (policy.allowPrivate || isPublicAddress(address)) return true;
  const allow = allowListFor(policy);
  if (allow.names.has(hostname.toLowerCase().replace(/^\[|\]$/g, ""))) return true;
  const a = unmapped(address);
  return allow.ranges.check(a.address, a.family);
}

/**
 * A `lookup` for `http.request` that resolves, then refuses unless every candidate address is
 * allowed (an answer mixing a public and a private address is refused as a whole).
 */
export function guardedLookup(policy: OutboundPolicy, resolve: Resolver = systemResolver): net.LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const denied = addresses.find((a) => !addressAllowed(policy, hostname, a.address));
        if (addresses.length === 0) return callback(new OutboundError("network", `${hostname} has no address`), "", 4);
        if (denied) {
          return callback(
            new OutboundError(
              "forbidden_address",
              `${hostname} resolves to ${denied.address}, which the outbound policy refuses${allowedBy(policy)}`,
            ),
            "",
            4,
          );
        }
        if ((options as dns.LookupOptions).all) return callback(null, addresses as unknown as string, 4);
        return callback(null, addresses[0].address, addresses[0].family);
      },
      (err: Error) => callback(new OutboundError("network", `cannot resolve ${hostname}: ${err.message}`), "", 4),
    );
  };
}

function parseTarget(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundError("invalid_url", "not a valid URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new OutboundError("invalid_url", `${url.protocol} URLs are not allowed`);
  return url;
}

interface Hop {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  truncated: boolean;
}

function flatHeaders(raw: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}

function oneHop(url: URL, init: SafeRequestInit, policy: OutboundPolicy, resolve: Resolver, signal: AbortSignal): Promise<Hop> {
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  // A literal address skips `lookup` in node:net, so it is judged here instead.
  if (net.isIP(hostname) && !addressAllowed(policy, hostname, hostname)) {
    return Promise.reject(
      new OutboundError("forbidden_address", `${hostname} is not an address the outbound policy allows${allowedBy(policy)}`),
    );
  }
  const transport = url.protocol === "https:" ? https : http;
  return new Promise<Hop>((resolveHop, reject) => {
    const req = transport.request(
      url,
      { method: init.method ?? "GET", headers: init.headers, lookup: guardedLookup(policy, resolve), signal, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        res.on("data", (chunk: Buffer) => {
          if (truncated) return;
          const room = init.maxBodyBytes - size;
          if (chunk.length > room) {
            chunks.push(chunk.subarray(0, room));
            size += room;
            truncated = true;
            res.destroy();
            resolveHop({ status: res.statusCode ?? 0, headers: flatHeaders(res.headers), body: Buffer.concat(chunks), truncated });
            return;
          }
          chunks.push(chunk);
          size += chunk.length;
        });
        res.on("end", () =>
          resolveHop({ status: res.statusCode ?? 0, headers: flatHeaders(res.headers), body: Buffer.concat(chunks), truncated }),
        );
        res.on("error", (err) => reject(toOutbound(err, signal)));
      },
    );
    req.on("error", (err) => reject(toOutbound(err, signal)));
    if (init.body !== undefined) req.write(init.body);
    req.end();
  });
}

function toOutbound(err: unknown, signal: AbortSignal): OutboundError {
  if (err instanceof OutboundError) return err;
  const cause = (err as { cause?: unknown }).cause;
  if (cause instanceof OutboundError) return cause;
  if (signal.aborted) return new OutboundError("timeout", "the request timed out");
  return new OutboundError("network", (err as Error).message ?? String(err));
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** One request under the policy, following redirects hop by hop; see the file comment. */
export async function safeRequest(
  rawUrl: string,
  init: SafeRequestInit,
  policy: OutboundPolicy,
  resolve: Resolver = systemResolver,
): Promise<SafeResponse> {
  const started = performance.now();
  const signal = AbortSignal.timeout(init.timeoutMs);
  let url = parseTarget(rawUrl);
  let hopInit = init;
  const maxRedirects = init.maxRedirects ?? 3;
  for (let hop = 0; ; hop++) {
    const res = await oneHop(url, hopInit, policy, resolve, signal);
    const location = res.headers.location;
    if (!REDIRECTS.has(res.status) || !location || maxRedirects === 0) {
      return { ...res, finalUrl: url.toString(), elapsedMs: Math.round(performance.now() - started) };
    }
    if (hop >= maxRedirects) throw new OutboundError("too_many_redirects", `more than ${maxRedirects} redirects`);
    url = parseTarget(new URL(location, url).toString());
    // 307/308 repeat the request; the others become a GET without a body, as browsers do.
    if (res.status !== 307 && res.status !== 308) hopInit = { ...hopInit, method: "GET", body: undefined };
  }
}
