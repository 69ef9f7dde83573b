import { type Kysely, sql } from "kysely";
import type { DialectName } from "../db";

/**
 * Organization tokens are for CI, as Sentry's `org:ci` (issue 39): releases, deploys, source maps
 * and the reads they need. Tokens made before carried whatever boxes their creator ticked
 * (`member:write`, `project:write`…) and acted as an admin; each is narrowed to the one scope that
 * now means what it may do. Personal tokens keep their scopes (their creator's role narrows them).
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await sql`update api_tokens set scopes = 'org:ci' where org_id is not null`.execute(db);
}
