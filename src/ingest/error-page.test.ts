import vm from "node:vm";
import { describe, expect, test } from "vitest";
import {
  checkFeedbackForm,
  DIALOG_DEFAULTS,
  dialogOptions,
  escapeHtml,
  jsonForScript,
  parseFormBody,
  renderDialogPage,
  renderDialogScript,
} from "./error-page";

const ID = "9ec79c33ec9942ab8353589fcb2e04dc";
const EVIL = `</script><script>alert(1)</script><img src=x onerror=alert(2)>"'&\u2028`;

describe("crash-report dialog", () => {
  test("options: SDK query keys, defaults for the rest, bounded", () => {
    const o = dialogOptions(
      new URLSearchParams({ title: "Oops", name: "Ada", labelSubmit: "", onLoad: "function(){}", subtitle: "x".repeat(1000) }),
      ID,
    );
    expect(o).toMatchObject({ eventId: ID, title: "Oops", name: "Ada", email: "", labelSubmit: DIALOG_DEFAULTS.labelSubmit });
    expect(o.subtitle).toHaveLength(300);
    expect(Object.keys(o)).not.toContain("onLoad");
  });

  test("the script embeds query values as inert JSON: nothing can close the script or become markup", () => {
    const js = renderDialogScript(
      dialogOptions(new URLSearchParams({ title: EVIL, name: EVIL }), ID),
      "http://errata.test/api/embed/error-page/",
    );
    expect(js).not.toContain("</script");
    expect(js).not.toContain("<img");
    expect(js).not.toContain("\u2028");
    expect(js).not.toContain("innerHTML");
    // It is valid JavaScript …
    expect(() => new vm.Script(js)).not.toThrow();
    // … and the value round-trips exactly.
    const m = /var o = (.*);\n/.exec(js);
    expect(JSON.parse(m?.[1] ?? "{}").title).toBe(EVIL);
    expect(jsonForScript("<>&")).toBe('"\\u003c\\u003e\\u0026"');
  });

  test("the HTML page escapes every value and carries no script", () => {
    const html = renderDialogPage(dialogOptions(new URLSearchParams({ title: EVIL, email: EVIL }), ID), { values: { comments: EVIL } });
    expect(html).not.toContain("<script");
    expect(html).not.toContain("<img");
    expect(html).toContain(escapeHtml(EVIL));
    expect(renderDialogPage(undefined, { problem: "<b>bad</b>" })).toContain("&#60;b&#62;bad&#60;/b&#62;");
    expect(renderDialogPage(dialogOptions(new URLSearchParams(), ID), { done: true })).toContain(DIALOG_DEFAULTS.successMessage);
  });

  test("form: all fields required, email checked, lengths bounded", () => {
    expect(checkFeedbackForm({ name: " Ada ", email: "ada@example.com", comments: "It broke" })).toEqual({
      ok: true,
      value: { name: "Ada", email: "ada@example.com", comments: "It broke" },
    });
    expect(checkFeedbackForm({ name: "", email: "nope", comments: "x".repeat(9000) })).toEqual({
      ok: false,
      errors: { name: "required", email: "not an email address", comments: "at most 8192 characters" },
    });
    expect(checkFeedbackForm({ name: 1, email: ["a"], comments: {} })).toMatchObject({ ok: false });
    expect(parseFormBody(Buffer.from("name=A%20B&email=a%40b.c&comments=hi"), "application/x-www-form-urlencoded")).toEqual({
      name: "A B",
      email: "a@b.c",
      comments: "hi",
    });
    expect(parseFormBody(Buffer.from('{"name":"A"}'), "application/json")).toEqual({ name: "A" });
    expect(parseFormBody(Buffer.from("[1]"), "application/json")).toEqual({});
  });
});
