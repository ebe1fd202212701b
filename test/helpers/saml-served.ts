/**
 * A real `assent serve` for the SAML tests that run the CLI or read the server's log: a fresh store
 * with the demo import, the acme Owner's token, and the app redirect URI registered.
 */
import { expect } from 'vitest';
import { call } from './assent.js';
import { DEMO_FILE, freshStore, runCli, type ServeProcess, startServe, type TestStore } from './cli.js';
import { requestIdOf } from './saml-forge.js';

/** The app redirect URI registered for acme. */
export const APP = 'https://app.example/cb';

/** A running server on its own store. */
export interface ServedOrg {
  store: TestStore;
  server: ServeProcess;
  /** The server's environment, its PORT included, for CLI commands on the same store. */
  env: Record<string, string>;
  orgId: string;
  /** The acme Owner's access token. */
  owner: string;
  /** Stops the server and removes the store. */
  close(): Promise<void>;
}

/**
 * Imports the demo into a fresh store, starts `assent serve` on it with `extraEnv` (and `LOG_LEVEL`
 * warn), signs the Owner in and registers `APP`.
 */
export async function serveOrg(extraEnv: Record<string, string>): Promise<ServedOrg> {
  const store = await freshStore();
  const imported = await runCli(['import', DEMO_FILE], store.env);
  expect(imported.code, imported.stderr).toBe(0);
  const orgId = JSON.parse(imported.stdout).organisations.acme.id as string;
  const env: Record<string, string> = { ...store.env, LOG_LEVEL: 'warn', ...extraEnv };
  const server = await startServe(env);
  env.PORT = new URL(server.url).port;
  const login = await call(`${server.base}/v1.1/users/login`, {
    body: { username: 'owner@acme.example', password: 'demo-owner-passphrase' },
  });
  const owner = login.body.Token.access_token as string;
  const uris = await call(`${server.base}/organizations/${orgId}/idp/open-id/app-redirect-uris`, {
    method: 'PUT',
    token: owner,
    body: { RedirectURIs: [APP] },
  });
  expect(uris.status).toBe(200);
  return {
    store,
    server,
    env,
    orgId,
    owner,
    async close() {
      await server.stop();
      await store.cleanup();
    },
  };
}

/** The PEM certificates of the SP metadata's `KeyDescriptor use="<use>"`, in order. */
export const metadataCertificates = (xml: string, use: 'signing' | 'encryption') =>
  [...xml.matchAll(new RegExp(`<KeyDescriptor use="${use}">[\\s\\S]*?<ds:X509Certificate>([^<]+)<`, 'g'))].map(
    (m) => `-----BEGIN CERTIFICATE-----\n${m[1]}\n-----END CERTIFICATE-----\n`,
  );

/**
 * Starts a sign-in at `…/idp/saml/authorize` for `APP`.
 * @param saml - the organisation's `…/idp/saml` URL.
 * @returns its RelayState and the AuthnRequest's ID.
 */
export async function pendingSignIn(saml: string): Promise<{ relayState: string; requestId: string }> {
  const res = await fetch(`${saml}/authorize?redirect_uri=${encodeURIComponent(APP)}&state=app`, {
    redirect: 'manual',
  });
  expect(res.status).toBe(302);
  const location = res.headers.get('location')!;
  return { relayState: new URL(location).searchParams.get('RelayState')!, requestId: requestIdOf(location) };
}
