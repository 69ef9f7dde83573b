import { apiRoute } from "@/server/http/api-route";
import { addNote, listNotes } from "@/server/issues/rest-mutations";

// Sentry's issue notes: GET lists them (newest first), POST {"text": "…"} adds one (members and up).
export const GET = apiRoute<{ org: string; issueId: string }>("event.read", (req, { params }) => listNotes(req, params));
export const POST = apiRoute<{ org: string; issueId: string }>("issue.comment", (req, { params }) => addNote(req, params));
export const dynamic = "force-dynamic";
