import { describe, expect, test } from "vitest";
import { formatDsn, parseDsn } from "./dsn";

describe("parseDsn (reference §1.1)", () => {
  test("plain DSN", () => {
    expect(parseDsn("http://abc123def4564567890abcdef1234567@127.0.0.1:9000/42")).toEqual({
      protocol: "http",
      publicKey: "abc123def4564567890abcdef1234567",
      host: "127.0.0.1",
      port: "9000",
      path: "",
      projectId: "42",
    });
  });
  test("https, no port, sub-path, deprecated secret", () => {
    expect(parseDsn("https://pub:secret@errors.example.com/sub/dir/7")).toEqual({
      protocol: "https",
      publicKey: "pub",
      secretKey: "secret",
      host: "errors.example.com",
      port: "",
      path: "sub/dir",
      projectId: "7",
    });
  });
  test("IPv6 host and trailing slash", () => {
    expect(parseDsn("http://k@[::1]:9000/3/")).toMatchObject({ host: "[::1]", port: "9000", projectId: "3" });
  });
  test("only the leading digits of the project segment count (JS SDK)", () => {
    expect(parseDsn("http://k@h/12abc")?.projectId).toBe("12");
  });
  test.each([["ftp://k@h/1"], ["http://h/1"], ["http://k@h/"], ["http://k@h/abc"], ["http://ke-y@h/1"], ["not a dsn"], [""]])(
    "%s → null",
    (dsn) => {
      expect(parseDsn(dsn)).toBeNull();
    },
  );
});

describe("formatDsn", () => {
  test("host:port from the public URL", () => {
    expect(formatDsn("http://127.0.0.1:9000", "abc", 42)).toBe("http://abc@127.0.0.1:9000/42");
  });
  test("keeps a sub-path, drops the trailing slash, default port omitted", () => {
    expect(formatDsn("https://errors.example.com/errata/", "abc", "7")).toBe("https://abc@errors.example.com/errata/7");
  });
  test("round-trips through parseDsn", () => {
    const p = parseDsn(formatDsn("http://[::1]:9000", "k1", 5));
    expect(p).toMatchObject({ publicKey: "k1", host: "[::1]", port: "9000", projectId: "5" });
  });
});
