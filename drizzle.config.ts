import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: [
    './src/platform/db/schema/core.ts',
    './src/platform/db/schema/consent.ts',
    './src/platform/db/schema/notifications.ts',
    './src/platform/db/schema/users.ts',
    './src/platform/db/schema/federation.ts',
    './src/platform/db/schema/saml.ts',
    './src/platform/db/schema/oidc.ts',
    './src/platform/db/schema/wallet.ts',
    './src/platform/db/schema/web.ts',
    './src/platform/db/schema/events.ts',
    './src/platform/db/schema/webhooks.ts',
    './src/platform/db/schema/audit.ts',
    './src/platform/db/schema/factors.ts',
  ],
  out: './drizzle',
});
