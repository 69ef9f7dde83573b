/**
 * The crash-report dialog (`GET /api/embed/error-page/` + its POST), what `Sentry.showReportDialog`
 * loads: the SDK appends `<script src=".../api/embed/error-page/?dsn=…&eventId=…&name=…&title=…">`
 * to the page, so the GET answers JavaScript that opens a dialog (in a shadow root, styles
 * isolated) on the host page; its form POSTs to the same URL (a CORS simple request) and closing
 * it posts `__sentry_reportdialog_closed__` to the window (the SDK's onClose). Browsers that
 * navigate to the URL (Accept: text/html) get a plain HTML page with the same form instead.
 *
 * Everything that comes from the query (labels, prefilled name/email, the event id) is data:
 * embedded in the script as JSON with `<`, `>`, `&`, U+2028/9 escaped and put into the DOM with
 * `textContent` / `value`, never as markup; the HTML page escapes it. No React: this is served by
 * the ingest handler. Pure: rendering and form checks only.
 */

export interface DialogOptions {
  eventId: string;
  name: string;
  email: string;
  title: string;
  subtitle: string;
  subtitle2: string;
  labelName: string;
  labelEmail: string;
  labelComments: string;
  labelClose: string;
  labelSubmit: string;
  errorGeneric: string;
  errorFormEntry: string;
  successMessage: string;
}

export const DIALOG_DEFAULTS: Omit<DialogOptions, "eventId" | "name" | "email"> = {
  title: "It looks like we’re having issues.",
  subtitle: "Our team has been notified.",
  subtitle2: "If you’d like to help, tell us what happened below.",
  labelName: "Name",
  labelEmail: "Email",
  labelComments: "What happened?",
  labelClose: "Close",
  labelSubmit: "Submit Crash Report",
  errorGeneric: "An unknown error occurred while submitting your report. Please try again.",
  errorFormEntry: "Some fields were invalid. Please correct the errors and try again.",
  successMessage: "Your feedback has been sent. Thank you!",
};

const MAX_LABEL = 300;

/** Dialog texts from the query string the SDK builds (unknown keys ignored, values bounded). */
export function dialogOptions(params: URLSearchParams, eventId: string): DialogOptions {
  const text = (key: string, fallback: string) => {
    const v = params.get(key);
    return v === null || v.trim() === "" ? fallback : v.slice(0, MAX_LABEL);
  };
  const out = { eventId, name: text("name", ""), email: text("email", "") } as DialogOptions;
  for (const [key, fallback] of Object.entries(DIALOG_DEFAULTS)) (out as unknown as Record<string, string>)[key] = text(key, fallback);
  return out;
}

export interface FeedbackForm {
  name: string;
  email: string;
  comments: string;
}

export type FormCheck = { ok: true; value: FeedbackForm } | { ok: false; errors: Record<string, string> };

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const FORM_LIMITS = { name: 128, email: 256, comments: 8192 };

/** Checks the dialog's form (urlencoded or JSON fields). Every field is required, as in Sentry. */
export function checkFeedbackForm(fields: Record<string, unknown>): FormCheck {
  const get = (k: string) => (typeof fields[k] === "string" ? (fields[k] as string).trim() : "");
  const value = { name: get("name"), email: get("email"), comments: get("comments") };
  const errors: Record<string, string> = {};
  if (!value.name) errors.name = "required";
  else if (value.name.length > FORM_LIMITS.name) errors.name = `at most ${FORM_LIMITS.name} characters`;
  if (!value.email) errors.email = "required";
  else if (value.email.length > FORM_LIMITS.email || !EMAIL_RE.test(value.email)) errors.email = "not an email address";
  if (!value.comments) errors.comments = "required";
  else if (value.comments.length > FORM_LIMITS.comments) errors.comments = `at most ${FORM_LIMITS.comments} characters`;
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, value };
}

/** Form fields from a urlencoded or JSON body. */
export function parseFormBody(body: Buffer, contentType: string | undefined): Record<string, unknown> {
  const text = body.toString("utf8");
  if (contentType?.toLowerCase().includes("json")) {
    try {
      const v: unknown = JSON.parse(text);
      return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  }
  return Object.fromEntries(new URLSearchParams(text));
}

/** JSON that is safe inside a <script>: nothing can close the tag or start markup. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const CSS = `
:host{all:initial}
.backdrop{position:fixed;inset:0;background:rgba(15,23,42,.55);display:flex;align-items:center;justify-content:center;z-index:2147483647;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#0f172a}
.dialog{background:#fff;border-radius:10px;box-shadow:0 20px 50px rgba(0,0,0,.3);width:min(520px,calc(100vw - 32px));max-height:calc(100vh - 32px);overflow:auto;padding:24px}
h2{font-size:18px;margin:0 0 4px}
p{margin:0 0 4px;color:#475569}
form{margin-top:16px;display:grid;gap:12px}
label{display:grid;gap:4px;font-weight:600}
input,textarea{font:inherit;padding:8px 10px;border:1px solid #cbd5e1;border-radius:6px;font-weight:400}
textarea{min-height:110px;resize:vertical}
input[aria-invalid=true],textarea[aria-invalid=true]{border-color:#dc2626}
.actions{display:flex;justify-content:flex-end;gap:8px;margin-top:4px}
button{font:inherit;border-radius:6px;padding:8px 14px;border:1px solid #cbd5e1;background:#fff;cursor:pointer}
button[type=submit]{background:#4f46e5;border-color:#4f46e5;color:#fff}
button:disabled{opacity:.6;cursor:default}
.error{color:#b91c1c;margin:0}
.success{color:#15803d;font-weight:600;margin-top:16px}
`;

/** The script the SDK's <script> tag runs. `fallbackPostUrl` is used when document.currentScript is unavailable. */
export function renderDialogScript(opts: DialogOptions, fallbackPostUrl: string): string {
  const config = jsonForScript({ ...opts, css: CSS, postUrl: fallbackPostUrl });
  return `/* Errata crash-report dialog */
(function () {
  "use strict";
  var o = ${config};
  var me = document.currentScript;
  var postUrl = me && me.src ? me.src : o.postUrl;
  if (document.getElementById("errata-report-dialog")) return;
  var host = document.createElement("div");
  host.id = "errata-report-dialog";
  var root = host.attachShadow ? host.attachShadow({ mode: "open" }) : host;
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs) if (Object.prototype.hasOwnProperty.call(attrs, k)) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  var style = el("style", {}, o.css);
  var backdrop = el("div", { "class": "backdrop" });
  var dialog = el("div", { "class": "dialog", role: "dialog", "aria-modal": "true", "aria-labelledby": "errata-rd-title" });
  dialog.appendChild(el("h2", { id: "errata-rd-title" }, o.title));
  dialog.appendChild(el("p", {}, o.subtitle));
  dialog.appendChild(el("p", {}, o.subtitle2));
  var form = el("form", { novalidate: "" });
  function field(name, label, type, value) {
    var l = el("label", {}, label);
    var input = type === "textarea" ? el("textarea", { name: name, required: "" }) : el("input", { name: name, type: type, required: "" });
    input.value = value || "";
    l.appendChild(input);
    form.appendChild(l);
    return input;
  }
  var nameInput = field("name", o.labelName, "text", o.name);
  var emailInput = field("email", o.labelEmail, "email", o.email);
  var commentsInput = field("comments", o.labelComments, "textarea", "");
  var message = el("p", { "class": "error", role: "alert" });
  form.appendChild(message);
  var actions = el("div", { "class": "actions" });
  var closeButton = el("button", { type: "button" }, o.labelClose);
  var submitButton = el("button", { type: "submit" }, o.labelSubmit);
  actions.appendChild(closeButton);
  actions.appendChild(submitButton);
  form.appendChild(actions);
  dialog.appendChild(form);
  backdrop.appendChild(dialog);
  root.appendChild(style);
  root.appendChild(backdrop);
  function close() {
    document.removeEventListener("keydown", onKey);
    if (host.parentNode) host.parentNode.removeChild(host);
    window.postMessage("__sentry_reportdialog_closed__", "*");
  }
  function onKey(e) { if (e.key === "Escape") close(); }
  document.addEventListener("keydown", onKey);
  closeButton.addEventListener("click", close);
  backdrop.addEventListener("click", function (e) { if (e.target === backdrop) close(); });
  form.addEventListener("submit", function (e) {
    e.preventDefault();
    submitButton.disabled = true;
    message.textContent = "";
    [nameInput, emailInput, commentsInput].forEach(function (i) { i.removeAttribute("aria-invalid"); });
    var body = new URLSearchParams();
    body.set("name", nameInput.value);
    body.set("email", emailInput.value);
    body.set("comments", commentsInput.value);
    fetch(postUrl, { method: "POST", body: body, mode: "cors", credentials: "omit" })
      .then(function (r) { return r.json().then(function (j) { return { ok: r.ok, j: j }; }, function () { return { ok: r.ok, j: {} }; }); })
      .then(function (r) {
        if (r.ok) {
          form.replaceWith(el("p", { "class": "success", role: "status" }, o.successMessage));
          setTimeout(close, 5000);
          return;
        }
        submitButton.disabled = false;
        var errors = (r.j && r.j.errors) || {};
        var map = { name: nameInput, email: emailInput, comments: commentsInput };
        var any = false;
        for (var k in map) if (errors[k]) { map[k].setAttribute("aria-invalid", "true"); any = true; }
        message.textContent = any ? o.errorFormEntry : o.errorGeneric;
      }, function () {
        submitButton.disabled = false;
        message.textContent = o.errorGeneric;
      });
  });
  (document.body || document.documentElement).appendChild(host);
  (o.name ? (o.email ? commentsInput : emailInput) : nameInput).focus();
})();
`;
}

export interface PageState {
  values?: Partial<FeedbackForm>;
  errors?: Record<string, string>;
  done?: boolean;
  /** a message instead of the form (bad link) */
  problem?: string;
}

/** The same dialog as a standalone page (no script): a form that POSTs back to its own URL. */
export function renderDialogPage(opts: DialogOptions | undefined, state: PageState = {}): string {
  const o = opts ?? { ...DIALOG_DEFAULTS, eventId: "", name: "", email: "" };
  const v = { name: state.values?.name ?? o.name, email: state.values?.email ?? o.email, comments: state.values?.comments ?? "" };
  const err = (k: string) => (state.errors?.[k] ? ' aria-invalid="true"' : "");
  let body: string;
  if (state.problem !== undefined) body = `<p class="error" role="alert">${escapeHtml(state.problem)}</p>`;
  else if (state.done) body = `<p class="success" role="status">${escapeHtml(o.successMessage)}</p>`;
  else {
    body = `<form method="post">
${state.errors ? `<p class="error" role="alert">${escapeHtml(o.errorFormEntry)}</p>` : ""}
<label>${escapeHtml(o.labelName)}<input name="name" required maxlength="${FORM_LIMITS.name}" value="${escapeHtml(v.name)}"${err("name")}></label>
<label>${escapeHtml(o.labelEmail)}<input name="email" type="email" required maxlength="${FORM_LIMITS.email}" value="${escapeHtml(v.email)}"${err("email")}></label>
<label>${escapeHtml(o.labelComments)}<textarea name="comments" required maxlength="${FORM_LIMITS.comments}"${err("comments")}>${escapeHtml(v.comments)}</textarea></label>
<div class="actions"><button type="submit">${escapeHtml(o.labelSubmit)}</button></div>
</form>`;
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(o.title)}</title>
<style>${CSS.replace(":host{all:initial}", "body{margin:0}").replace(".backdrop{position:fixed;inset:0;background:rgba(15,23,42,.55);", ".backdrop{min-height:100vh;background:#f1f5f9;")}</style></head>
<body><div class="backdrop"><main class="dialog" aria-labelledby="t"><h2 id="t">${escapeHtml(o.title)}</h2><p>${escapeHtml(o.subtitle)}</p><p>${escapeHtml(o.subtitle2)}</p>
${body}
</main></div></body></html>
`;
}

/** The page's CSP: no script at all, inline styles only, the form posts back to itself. */
export const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'";
