/**
 * A special consent request on a real `assent serve` child process, for the crash tests: the demo
 * organisation with individuals added, its webhook pointed at a receiver on loopback.
 */
import { expect } from 'vitest';
import { call } from './assent.js';
import { type ServedAssent, serveFresh } from './cli.js';
import { waitFor } from './receiver.js';

/** The served demo organisation, signed in as its owner. */
export interface DemoRequest {
  s: ServedAssent;
  token: string;
  orgUrl: string;
  /** The consent-based Marketing purpose's ID. */
  marketing: string;
}

/**
 * Serves the demo with batches of `batch` individuals and a 2 s job lease, adds `added` individuals
 * (`<prefix><n>@acme.example`), and sets the organisation's webhook to `hookUrl`.
 * @param env - more environment (e.g. the push stand-ins' endpoints).
 */
export async function serveDemoRequest(
  added: number,
  batch: number,
  hookUrl: string,
  prefix: string,
  env: Record<string, string> = {},
): Promise<DemoRequest> {
  const s = await serveFresh('examples/demo.json', {
    ASSENT_WEBHOOK_ALLOW_HTTP_HOSTS: '127.0.0.1',
    ASSENT_NOTIFY_BATCH_SIZE: String(batch),
    ASSENT_JOB_LEASE_SECONDS: '2',
    ...env,
  });
  const signIn = await call(`${s.base}/v1.1/users/login`, {
    body: { username: 'owner@acme.example', password: 'demo-owner-passphrase' },
  });
  const token = signIn.body.Token.access_token as string;
  const orgUrl = `${s.base}/organizations/${signIn.body.User.Roles[0].OrgID as string}`;
  const purposes = (await call(`${orgUrl}/purposes`, { token })).body.Purposes;
  const marketing = purposes.find((p: any) => p.Name === 'Marketing').ID as string;
  for (let i = 0; i < added; i++) {
    expect((await call(`${orgUrl}/users`, { body: { username: `${prefix}${i}@acme.example` }, token })).status).toBe(
      201,
    );
  }
  expect(
    (await call(`${orgUrl}/notification-transports`, { method: 'PUT', body: { webhook: { url: hookUrl } }, token }))
      .status,
  ).toBe(200);
  return { s, token, orgUrl, marketing };
}

/**
 * Starts the killed server again; on the embedded store the dead process's data-directory lock goes stale after 15 s.
 */
export async function restartAfterKill(s: ServedAssent): Promise<void> {
  await waitFor(
    () =>
      s.restart().then(
        () => true,
        () => false,
      ),
    (ok) => ok,
    60_000,
  );
}
