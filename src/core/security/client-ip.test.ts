import { expect, test } from "vitest";
import { clientIp, normalizeIp, parseTrustedProxies } from "./client-ip";

function proxies(value: string) {
  const parsed = parseTrustedProxies(value);
  if (!parsed.ok) throw new Error(`bad ${parsed.bad}`);
  return parsed.proxies;
}

test("without trusted proxies the socket peer is the client, whatever X-Forwarded-For says", () => {
  expect(clientIp("203.0.113.7", "1.2.3.4", proxies(""))).toBe("203.0.113.7");
  expect(clientIp("::ffff:127.0.0.1", "1.2.3.4", proxies(""))).toBe("127.0.0.1");
});

test("a peer outside TRUSTED_PROXIES cannot pick its address", () => {
  expect(clientIp("198.51.100.1", "1.2.3.4", proxies("10.0.0.0/8"))).toBe("198.51.100.1");
});

test("behind a trusted proxy the rightmost untrusted hop is the client", () => {
  const t = proxies("10.0.0.0/8, 127.0.0.1");
  expect(clientIp("127.0.0.1", "203.0.113.9", t)).toBe("203.0.113.9");
  // A forged leftmost entry is ignored: the first untrusted hop from the right wrote the rest.
  expect(clientIp("::ffff:127.0.0.1", "6.6.6.6, 203.0.113.9, 10.1.2.3", t)).toBe("203.0.113.9");
  expect(clientIp("10.0.0.5", "10.0.0.9, 10.0.0.8", t)).toBe("10.0.0.9");
  expect(clientIp("10.0.0.5", undefined, t)).toBe("10.0.0.5");
  expect(clientIp("10.0.0.5", "not-an-ip", t)).toBe("10.0.0.5");
});

test("IPv6 ranges and bad entries", () => {
  const t = proxies("fd00::/8, ::1");
  expect(clientIp("::1", "2001:db8::1", t)).toBe("2001:db8::1");
  expect(clientIp("fd12::3", "[2001:DB8::2]", t)).toBe("2001:db8::2");
  expect(parseTrustedProxies("10.0.0.0/33")).toEqual({ ok: false, bad: "10.0.0.0/33" });
  expect(parseTrustedProxies("proxy.local")).toEqual({ ok: false, bad: "proxy.local" });
  expect(normalizeIp(" ::FFFF:10.0.0.1 ")).toBe("10.0.0.1");
});
