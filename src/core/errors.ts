/**
 * The error catalogue: every error Errata shows or returns has a stable code, an HTTP status, a
 * human message and (for ingest) the outcome it records. `docs/errors.md` is generated from this
 * table (`npm run docs:errors`), so this is the single source of truth.
 */

export type Outcome = "accepted" | "filtered" | "rate_limited" | "invalid";

export interface CatalogueEntry {
  status: number;
  message: string;
  /** For ingest errors: the outcome recorded for the rejected items. */
  outcome?: Outcome;
}

export const ERROR_CATALOGUE = {
  invalid_envelope: { status: 400, message: "The envelope is malformed.", outcome: "invalid" },
  invalid_json: { status: 400, message: "The payload is not valid JSON.", outcome: "invalid" },
  invalid_event_id: { status: 400, message: "The event id is not a valid UUID.", outcome: "invalid" },
  payload_too_large: { status: 413, message: "The request exceeds a size limit.", outcome: "invalid" },
  unsupported_encoding: { status: 415, message: "The Content-Encoding is not supported.", outcome: "invalid" },
  missing_auth: { status: 401, message: "Missing authorization information (DSN key).", outcome: "invalid" },
  invalid_dsn: { status: 403, message: "The DSN key is unknown or does not belong to this project.", outcome: "invalid" },
  project_disabled: { status: 403, message: "The DSN key or project is disabled.", outcome: "filtered" },
  unknown_project: { status: 404, message: "No project has this id.", outcome: "invalid" },
  rate_limited: { status: 429, message: "Too many events; retry later.", outcome: "rate_limited" },
  overloaded: { status: 503, message: "Errata is overloaded; retry later.", outcome: "rate_limited" },
  request_timeout: { status: 408, message: "The request body did not arrive in time.", outcome: "invalid" },
  method_not_allowed: { status: 405, message: "This endpoint does not accept that method." },
  unauthenticated: { status: 401, message: "Sign in or send a valid bearer token." },
  forbidden: { status: 403, message: "You do not have permission to do that." },
  not_found: { status: 404, message: "Not found." },
  validation_failed: { status: 400, message: "Some fields are invalid." },
  conflict: { status: 409, message: "That conflicts with existing data." },
  invalid_query: { status: 400, message: "The search query could not be parsed." },
  upload_rejected: { status: 400, message: "The upload was rejected." },
  bundle_entry_too_large: {
    status: 413,
    message: "A file in the source-map bundle is larger, decompressed, than the per-file limit (SOURCEMAP_MAX_FILE_SIZE).",
  },
  bundle_unpacked_too_large: {
    status: 413,
    message: "The source-map bundle's files together are larger, decompressed, than the limit (SOURCEMAP_MAX_UNPACKED_SIZE).",
  },
  setup_done: { status: 409, message: "Errata is already set up; sign in instead." },
  storage_unavailable: {
    status: 503,
    message: "The database is not accepting writes right now (locked by another process, read-only or unreachable); retry later.",
    outcome: "rate_limited",
  },
  foreign_origin: {
    status: 403,
    message:
      "This request came from another origin (site, port or scheme) than Errata's own pages; it was refused to protect your session.",
  },
  json_required: {
    status: 415,
    message: "Requests signed in with the session cookie must send a JSON body (Content-Type: application/json).",
  },
  scope_not_allowed: {
    status: 403,
    message: "A token cannot have scopes beyond what your role allows (a viewer's token only reads); choose among the scopes offered.",
  },
  invitation_other_account: {
    status: 403,
    message: "This invitation is for another email address: sign out and accept it with the account of the invited address.",
  },
  sign_in_throttled: {
    status: 429,
    message: "Too many failed sign-in attempts for this account from this address, or from this address. Wait and try again.",
  },
  ingest_not_served: {
    status: 404,
    message:
      "This Errata process does not run the ingest role: send events to the ingest address (PUBLIC_INGEST_URL, or a proxy that routes /api/{id}/envelope/ to ingest; see docs/scaling.md).",
  },
  account_locked: {
    status: 429,
    message:
      "This account is briefly locked after many failed sign-ins from many addresses. A browser that has signed in to it before can still sign in.",
  },
  known_device_link_invalid: {
    status: 410,
    message:
      "This sign-in link was already used or has expired. Browsers that signed in before can still sign in; a new link is mailed if the account is locked again.",
  },
  invitation_invalid: { status: 410, message: "This invitation link was already used, revoked or has expired. Ask for a new one." },
  last_owner: { status: 409, message: "An organization needs at least one owner: make someone else owner first." },
  mail_failed: { status: 502, message: "The email could not be sent; copy the link instead." },
  reset_invalid: { status: 410, message: "This password reset link was already used or has expired. Ask for a new one." },
  password_reset_unavailable: {
    status: 404,
    message: "Password reset by email is not set up on this installation (no SMTP). Ask an owner to reset your password.",
  },
  // Single sign-on (src/server/auth/sso.ts)
  sso_not_configured: { status: 404, message: "This organization has no single sign-on set up. Check the organization's short name." },
  sso_provider_unreachable: { status: 502, message: "The organization's identity provider could not be reached or used." },
  sso_failed: { status: 400, message: "Single sign-on did not complete: the provider's answer could not be verified. Start again." },
  sso_link_required: {
    status: 409,
    message:
      "An Errata account with this email already exists. Sign in with its password first, then link it under Account → Single sign-on.",
  },
  sso_deprovisioned: {
    status: 403,
    message:
      "Your identity provider's provisioning (SCIM) deactivated you in this organization. Ask its administrator to assign you again.",
  },
  sso_required: { status: 403, message: "This organization requires single sign-on: choose “Sign in with SSO”." },
  // Importing from Sentry's REST API (src/server/import/): the source, then conflicts here.
  import_source_unreachable: {
    status: 502,
    message:
      "The Sentry server could not be reached: check the URL (scheme, host, port), DNS and TLS, and that the outbound policy allows it.",
  },
  import_source_unauthorized: {
    status: 400,
    message: "The Sentry server refused the token: use an auth token with org:read, project:read and member:read for this organization.",
  },
  import_not_sentry: {
    status: 502,
    message:
      "The URL answered, but not with Sentry's API (an HTML page or unexpected JSON): give the server's base URL, e.g. https://sentry.example.com.",
  },
  import_source_not_found: { status: 404, message: "The Sentry server has no organization with this slug, or the token cannot see it." },
  import_source_failed: {
    status: 502,
    message: "The Sentry server answered with an error or kept rate-limiting; run the import again to resume.",
  },
  import_project_conflict: {
    status: 409,
    message: "A project with this slug already exists here with other DSN keys: rename one of them, or import into another organization.",
  },
  import_key_conflict: {
    status: 409,
    message: "A DSN key being imported already belongs to another project or organization here; nothing was imported.",
  },
  internal_error: { status: 500, message: "Something went wrong on our side. The request id identifies it in the server log." },
  // Cron check-ins (src/pipeline/monitor-checkins.ts): outcome reasons of `check_in` items.
  invalid_check_in: {
    status: 400,
    message: "The check-in is malformed (monitor slug, status, check-in id or monitor_config).",
    outcome: "invalid",
  },
  monitor_not_found: {
    status: 404,
    message: "No monitor has this slug, and the check-in carries no monitor_config to create it.",
    outcome: "filtered",
  },
  monitor_disabled: { status: 409, message: "The monitor is paused; its check-ins are dropped.", outcome: "filtered" },
  // SAML 2.0 sign-in (src/server/saml/): each refusal of an identity provider's response names why.
  saml_malformed: {
    status: 400,
    message: "The SAML response is not a well-formed SAML 2.0 response (document type declarations, entities and comments are refused).",
  },
  saml_unsigned: {
    status: 400,
    message: "The SAML response is not signed: the response or its assertion must carry the identity provider's signature.",
  },
  saml_signature_invalid: {
    status: 400,
    message: "The SAML response's signature does not verify with the identity provider's certificate configured for this organization.",
  },
  saml_wrapped: {
    status: 400,
    message: "The SAML response holds more than one assertion or signs another element than the one it asserts (signature wrapping).",
  },
  saml_wrong_audience: {
    status: 400,
    message: "The SAML assertion is meant for another service provider (its Audience is not this organization's entity id).",
  },
  saml_wrong_recipient: {
    status: 400,
    message: "The SAML response was sent to another address (its Destination or Recipient is not this organization's ACS URL).",
  },
  saml_wrong_issuer: { status: 400, message: "The SAML response comes from another identity provider than the one configured." },
  saml_expired: { status: 400, message: "The SAML assertion is outside its validity window (NotBefore / NotOnOrAfter). Sign in again." },
  saml_replayed: { status: 400, message: "This SAML assertion was used already; each is accepted once. Sign in again." },
  saml_unknown_request: {
    status: 400,
    message:
      "The SAML response answers a sign-in this organization did not start, or one already answered or expired (InResponseTo). Start again.",
  },
  saml_idp_error: { status: 400, message: "The identity provider answered with an error status instead of an assertion." },
  saml_no_email: {
    status: 400,
    message: "The SAML assertion carries no email address: map the email attribute (or send the email as NameID).",
  },
  // SCIM 2.0 provisioning (src/server/scim/): answered in SCIM's error shape with these codes beside it.
  scim_unauthorized: { status: 401, message: "Send this organization's SCIM token as a bearer token (Settings → Single sign-on → SCIM)." },
  scim_invalid_filter: {
    status: 400,
    message: 'The SCIM filter is not supported: use eq on userName, externalId or displayName (joined by "and").',
  },
  scim_invalid_value: { status: 400, message: "The SCIM request is invalid (RFC 7643/7644)." },
  scim_uniqueness: { status: 409, message: "A user or group with this name exists already." },
  idp_managed: {
    status: 409,
    message: "This is managed by your identity provider (SCIM or group mapping): change it there, or remove the mapping first.",
  },
  // Session replay (src/ingest/replay-check.ts, src/pipeline/replays/): refused before anything is queued.
  replay_invalid_recording: {
    status: 400,
    message:
      'The replay recording is malformed: it must be a JSON header line ({"segment_id": N}) followed by a zlib-compressed or plain rrweb event array.',
    outcome: "invalid",
  },
  replay_segment_too_large: {
    status: 413,
    message:
      "A replay recording segment is larger than the limit, as sent (REPLAY_SEGMENT_MAX_SIZE) or inflated (REPLAY_SEGMENT_MAX_INFLATED); inflation stopped at the limit.",
    outcome: "invalid",
  },
  replay_too_large: {
    status: 413,
    message: "This replay has reached its size cap (REPLAY_MAX_SIZE); its further segments are refused.",
    outcome: "invalid",
  },
  replay_unknown: {
    status: 404,
    message: "A recording segment arrived without its replay_event for a replay Errata has not received; send the replay_event with it.",
    outcome: "invalid",
  },
  replay_foreign: {
    status: 403,
    message: "This replay id belongs to another project; a DSN key can only add to its own project's replays.",
    outcome: "invalid",
  },
  // Backups (issue 43): `errata backup` / `errata restore`. A refused restore changes nothing in its target.
  backup_tool_missing: {
    status: 500,
    message:
      "pg_dump (or pg_restore) was not found on PATH: install the PostgreSQL client tools of the server's major version (Debian/Ubuntu: apt-get install postgresql-client).",
  },
  backup_failed: { status: 500, message: "The backup could not be written; the partial archive was removed." },
  backup_corrupt: {
    status: 400,
    message:
      "The backup archive is corrupt: a file's SHA-256 differs from its manifest, or the archive cannot be read. Nothing was restored.",
  },
  backup_truncated: {
    status: 400,
    message: "The backup archive is truncated (it ends early or its manifest is missing). Nothing was restored.",
  },
  backup_schema_newer: {
    status: 400,
    message:
      "The backup was made by a newer Errata (its schema is newer than this version's); upgrade Errata, then restore. Nothing was restored.",
  },
  restore_target_not_empty: {
    status: 409,
    message: "The restore target is not empty: restore into an empty data directory or an empty PostgreSQL database. Nothing was restored.",
  },
  restore_counts_differ: {
    status: 500,
    message: "After the restore the row counts differ from the backup's manifest; do not use the restored copy.",
  },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export interface FieldError {
  field: string;
  rule: string;
  message: string;
}

/** A failure we expect and name. Anything else thrown is an `internal_error`. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly fields?: FieldError[];
  readonly position?: number;

  constructor(code: ErrorCode, message?: string, extra: { fields?: FieldError[]; position?: number } = {}) {
    super(message ?? ERROR_CATALOGUE[code].message);
    this.name = "AppError";
    this.code = code;
    this.status = ERROR_CATALOGUE[code].status;
    this.fields = extra.fields;
    this.position = extra.position;
  }

  /** validation_failed on one field. */
  static field(field: string, rule: string, message: string): AppError {
    return new AppError("validation_failed", message, { fields: [{ field, rule, message }] });
  }
}

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError || (typeof err === "object" && err !== null && (err as { name?: string }).name === "AppError");
}

/** The catalogue as a Markdown page (docs/errors.md is this output; a test keeps them equal). */
export function renderErrorCatalogue(): string {
  const rows = Object.entries(ERROR_CATALOGUE as Record<string, CatalogueEntry>).map(
    ([code, e]) => `| \`${code}\` | ${e.status} | ${e.message} | ${e.outcome ?? "—"} |`,
  );
  return [
    "# Error catalogue",
    "",
    "Generated from `src/core/errors.ts` by `npm run docs:errors` — do not edit by hand.",
    "",
    'Ingest endpoints answer `{"detail": message, "code": code}` with the message also in `X-Sentry-Error`;',
    'the REST API answers `{"error": {"code", "message", "fields"?, "position"?, "request_id"}}`; the UI shows',
    "the message on a product error page with the request id.",
    "",
    "| code | HTTP status | message | ingest outcome |",
    "|---|---|---|---|",
    ...rows,
    "",
  ].join("\n");
}
