import { app } from "@/server/app-context";

// Better Auth's own endpoints (sign-in, sign-out, session). The instance lives in the services.
const handler = (req: Request) => app().auth.handler(req) as Promise<Response>;

export const GET = handler;
export const POST = handler;
export const dynamic = "force-dynamic";
