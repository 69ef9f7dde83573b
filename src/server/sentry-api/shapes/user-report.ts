import type { FeedbackRow } from "../../../storage/feedback/feedback";

/** Sentry's UserReport shape: the user-feedback list, and an event's `userReport`. */
export function sentryUserReport(r: FeedbackRow) {
  return {
    id: String(r.id),
    eventID: r.eventId,
    name: r.name,
    email: r.email,
    comments: r.comments,
    dateCreated: new Date(r.createdAt).toISOString(),
    user: null,
    event: r.eventId ? { id: r.eventId, eventID: r.eventId } : null,
    issue: null,
  };
}
