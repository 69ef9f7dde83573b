import { describe, expect, test } from "vitest";
import { AppError } from "../core/errors";
import { cspMessage, parseSecurityBody, securityReportToEvent, toCspReport } from "./security";

const REPORT_URI = {
  "csp-report": {
    "document-uri": "https://shop.example/checkout",
    referrer: "https://shop.example/",
    "violated-directive": "script-src-elem",
    "effective-directive": "script-src-elem",
    "original-policy": "default-src 'self'; report-uri /api/1/security/?sentry_key=k",
    disposition: "enforce",
    "blocked-uri": "https://evil.example/x.js",
    "status-code": 200,
    "script-sample": "",
  },
};

const REPORTING_API = [
  {
    type: "csp-violation",
    age: 10,
    url: "https://shop.example/cart",
    user_agent: "Mozilla/5.0",
    body: {
      documentURL: "https://shop.example/cart",
      blockedURL: "inline",
      effectiveDirective: "style-src-elem",
      originalPolicy: "style-src 'self'",
      disposition: "enforce",
      statusCode: 200,
      sample: "color: red",
    },
  },
  { type: "deprecation", url: "https://shop.example/", body: { id: "x" } },
];

describe("security reports (reference §2.6)", () => {
  test("report-uri body → one report", () => {
    const { reports, ignored } = parseSecurityBody(Buffer.from(JSON.stringify(REPORT_URI)));
    expect(ignored).toBe(0);
    expect(reports).toEqual([REPORT_URI["csp-report"]]);
  });

  test("Reporting API body → CSP violations with report-uri keys; other report types ignored", () => {
    const { reports, ignored } = parseSecurityBody(Buffer.from(JSON.stringify(REPORTING_API)));
    expect(ignored).toBe(1);
    expect(reports).toEqual([
      {
        "document-uri": "https://shop.example/cart",
        "blocked-uri": "inline",
        "effective-directive": "style-src-elem",
        "original-policy": "style-src 'self'",
        disposition: "enforce",
        "status-code": 200,
        "script-sample": "color: red",
        "user-agent": "Mozilla/5.0",
      },
    ]);
  });

  test("not JSON → invalid_json", () => {
    expect(() => parseSecurityBody(Buffer.from("<html>"))).toThrow(AppError);
    expect(() => parseSecurityBody(Buffer.from("[]"))).toThrow(/empty/);
  });

  test("→ event fingerprinted [csp, directive, blocked uri] with Sentry's message", () => {
    const ev = securityReportToEvent(REPORT_URI, { release: "shop@1", environment: "prod" });
    expect(ev).toMatchObject({
      type: "csp",
      level: "error",
      logentry: { formatted: "Blocked 'script' from 'evil.example'" },
      culprit: "script-src-elem",
      fingerprint: ["csp", "script-src-elem", "https://evil.example/x.js"],
      request: { url: "https://shop.example/checkout", headers: { Referer: "https://shop.example/" } },
      release: "shop@1",
      environment: "prod",
      csp: { blocked_uri: "https://evil.example/x.js", effective_directive: "script-src-elem", status_code: 200 },
    });
    const inline = securityReportToEvent(REPORTING_API[0], {});
    expect(inline).toMatchObject({ fingerprint: ["csp", "style-src-elem", "inline"], logentry: { formatted: "Blocked inline 'style'" } });
    expect(inline.release).toBeUndefined();
    // Whatever arrives, an event comes out.
    expect(securityReportToEvent(42, {})).toMatchObject({ type: "csp", fingerprint: ["csp", "unknown", "self"] });
  });

  test("messages", () => {
    expect(cspMessage("img-src", "data")).toBe("Blocked 'image' from 'data:'");
    expect(cspMessage("script-src", "eval")).toBe("Blocked 'eval' in 'script'");
    expect(cspMessage("connect-src", "wss://x.example:8443/s")).toBe("Blocked 'connect' from 'x.example:8443'");
    expect(toCspReport({ "violated-directive": "img-src" })).toEqual({ "violated-directive": "img-src" });
    expect(toCspReport({ type: "intervention" })).toBeUndefined();
  });
});
