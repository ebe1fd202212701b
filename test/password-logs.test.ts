/**
 * The background work of the password flows, in a real `assent serve` (LOG_LEVEL=info): a mail relay
 * that refuses every message makes the reset-link and notice mails fail; each failure is one log line
 * with the request's ID and without the token or a password, and the process keeps serving.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './helpers/assent.js';
import {
  DEMO_FILE,
  freshStore,
  jsonLogLines,
  runCli,
  type ServeProcess,
  startServe,
  type TestStore,
} from './helpers/cli.js';
import { waitFor } from './helpers/receiver.js';
import { type Smtp, startSmtp } from './helpers/smtp.js';

const USERNAME = 'alice@acme.example';
const OLD_PASSWORD = 'demo-alice-passphrase';
const NEW_PASSWORD = 'alice-recovered-passphrase';
const NEWER_PASSWORD = 'alice-changed-again-passphrase';

let smtp: Smtp;
let store: TestStore;
let server: ServeProcess;
let token = '';

const logLines = () => jsonLogLines(server);
const failures = (task: string) => logLines().filter((e) => e.msg === 'background task failed' && e.task === task);

beforeAll(async () => {
  smtp = await startSmtp();
  smtp.refuseWith = 554;
  store = await freshStore();
  const imported = await runCli(['import', DEMO_FILE], store.env);
  if (imported.code !== 0) throw new Error(imported.stderr);
  server = await startServe({ ...store.env, LOG_LEVEL: 'info', SMTP_URL: smtp.url });
}, 120_000);
afterAll(async () => {
  await server?.stop('SIGKILL');
  await store?.cleanup();
  await smtp?.close();
});

describe('password flows when the mail relay refuses', () => {
  it('a refused reset-link mail is logged (task, request ID, relay code) without the token, and the process keeps serving', async () => {
    const res = await call(`${server.base}/user/password/forgot`, {
      method: 'PUT',
      body: { username: USERNAME },
      headers: { 'x-request-id': 'forgot-1' },
    });
    expect(res.status).toBe(200);
    const [mail] = await smtp.waitForMails(USERNAME, 1);
    token = /#token=([A-Za-z0-9_-]+)/.exec(mail!.text)![1]!;
    const [line] = await waitFor(
      async () => failures('password.forgot'),
      (l) => l.length > 0,
    );
    expect(line).toMatchObject({ level: 50, requestId: 'forgot-1', err: { responseCode: 554 } });
    expect((await call(`${server.url}/healthz`)).status).toBe(200);
  });

  it('the stored token still completes the reset; the refused notice is logged too', async () => {
    const res = await call(`${server.base}/user/password/forgot/complete`, { body: { token, password: NEW_PASSWORD } });
    expect(res.status).toBe(200);
    await waitFor(
      async () => failures('password.notice'),
      (l) => l.length > 0,
    );
    const login = await call(`${server.base}/v1.1/users/login`, {
      body: { username: USERNAME, password: NEW_PASSWORD },
    });
    expect(login.status).toBe(200);
    const change = await call(`${server.base}/user/password/reset`, {
      token: login.body.Token.access_token,
      body: { password: NEWER_PASSWORD, currentpassword: NEW_PASSWORD },
    });
    expect(change.status).toBe(200);
    await waitFor(
      async () => failures('password.notice'),
      (l) => l.length > 1,
    );
  });

  it('no log line holds the token, its hash, or a password; the server stops cleanly', async () => {
    expect((await server.stop()).code).toBe(0);
    const output = `${server.stdout()}\n${server.stderr()}`;
    const secrets = {
      token,
      'token hash (hex)': createHash('sha256').update(token).digest('hex'),
      'token hash (base64)': createHash('sha256').update(token).digest('base64'),
      'old password': OLD_PASSWORD,
      'new password': NEW_PASSWORD,
      'newer password': NEWER_PASSWORD,
    };
    expect(token.length).toBeGreaterThan(40);
    expect(
      Object.entries(secrets)
        .filter(([, v]) => output.includes(v))
        .map(([k]) => k),
    ).toEqual([]);
  });
});
