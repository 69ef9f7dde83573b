import { apiRoute } from "@/server/http/api-route";
import { addNote, listNotes } from "@/server/issues/rest-mutations";

// Sentry serves its issue notes under both names; the MCP server's add_issue_note and
// get_issue_activity use `notes/`, scripts mostly `comments/`.
export const GET = apiRoute<{ org: string; issueId: string }>("event.read", (req, { params }) => listNotes(req, params));
export const POST = apiRoute<{ org: string; issueId: string }>("issue.comment", (req, { params }) => addNote(req, params));
export const dynamic = "force-dynamic";
