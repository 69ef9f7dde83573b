import { app } from "@/server/app-context";

// Better Auth's own endpoints (sign-in, sign-out, session), sign-in behind the login throttle.
const handler = (req: Request) => app().authRequests.handle(req);

export const GET = handler;
export const POST = handler;
export const dynamic = "force-dynamic";
