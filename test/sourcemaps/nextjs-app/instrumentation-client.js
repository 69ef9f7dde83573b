import * as Sentry from "@sentry/nextjs";

Sentry.init({ dsn: process.env.NEXT_PUBLIC_ERRATA_DSN, release: "shop-next@1.0.0", environment: "e2e" });

export const onRouterTransitionStart = Sentry.captureRouterTransitionStart;
