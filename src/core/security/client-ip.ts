/**
 * The client address of a request. `X-Forwarded-For` is believed only hop by hop from the socket
 * peer back through proxies the operator listed in TRUSTED_PROXIES; anyone else could write any
 * address there and escape the per-IP login throttle (or frame another address).
 */
import { BlockList, isIP } from "node:net";

/** A parsed TRUSTED_PROXIES list; `check` answers whether an address is one of them. */
export interface TrustedProxies {
  check(address: string): boolean;
  readonly size: number;
}

/** Strips the IPv4-mapped prefix the dual-stack socket reports (`::ffff:10.0.0.1`). */
export function normalizeIp(address: string): string {
  const trimmed = address.trim().replace(/^\[|\]$/g, "");
  const mapped = trimmed.match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i);
  return mapped ? (mapped[1] as string) : trimmed.toLowerCase();
}

/**
 * Parses a comma separated list of addresses and CIDR ranges (`10.0.0.0/8, ::1, 172.16.0.0/12`).
 * Returns the list or the first entry that is not one (the caller reports it).
 */
export function parseTrustedProxies(value: string): { ok: true; proxies: TrustedProxies } | { ok: false; bad: string } {
  const list = new BlockList();
  let size = 0;
  for (const raw of value.split(",")) {
    const entry = raw.trim();
    if (!entry) continue;
    const [addr = "", prefix] = entry.split("/");
    const ip = normalizeIp(addr);
    const family = isIP(ip);
    if (family === 0) return { ok: false, bad: entry };
    const type = family === 4 ? "ipv4" : "ipv6";
    if (prefix === undefined) {
      list.addAddress(ip, type);
    } else {
      const bits = Number(prefix);
      if (!/^\d+$/.test(prefix) || bits > (family === 4 ? 32 : 128)) return { ok: false, bad: entry };
      list.addSubnet(ip, bits, type);
    }
    size++;
  }
  return {
    ok: true,
    proxies: {
      size,
      check(address: string) {
        const ip = normalizeIp(address);
        const family = isIP(ip);
        return family !== 0 && list.check(ip, family === 4 ? "ipv4" : "ipv6");
      },
    },
  };
}

/**
 * The client address: the socket peer unless it is a trusted proxy, in which case the rightmost
 * `X-Forwarded-For` entry that is not itself a trusted proxy (entries left of it were written by
 * whoever the first untrusted hop was, so they prove nothing).
 */
export function clientIp(remoteAddress: string | undefined, forwardedFor: string | undefined, trusted: TrustedProxies): string {
  const peer = normalizeIp(remoteAddress ?? "");
  if (!peer) return "unknown";
  if (trusted.size === 0 || !trusted.check(peer) || !forwardedFor) return peer;
  const hops = forwardedFor
    .split(",")
    .map((h) => normalizeIp(h))
    .filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i] as string;
    if (isIP(hop) === 0) return peer;
    if (!trusted.check(hop)) return hop;
  }
  // Every hop is a trusted proxy: the leftmost is the closest we know to the client.
  return hops[0] ?? peer;
}
