import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: [
    './src/db/schema-core.ts',
    './src/db/schema-consent.ts',
    './src/db/schema-notifications.ts',
    './src/db/schema-users.ts',
    './src/db/schema-federation.ts',
    './src/db/schema-saml.ts',
    './src/db/schema-oidc.ts',
    './src/db/schema-wallet.ts',
    './src/db/schema-web.ts',
  ],
  out: './drizzle',
});
