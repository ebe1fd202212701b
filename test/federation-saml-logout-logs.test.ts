/**
 * The logs of refused SAML logout messages in a real `assent serve` (LOG_LEVEL=info;
 * docs/federation.md "SAML 2.0", Logout): each refusal is one warn line `SAML logout message refused`
 * with the request ID, the organisation, the binding, the message type and the failed check, and no
 * line carries the message (its base64, its ID) or the NameID it names.
 */
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
import { type TestKeyPair, testKeyPair } from './helpers/saml-keys.js';
import {
  configureSaml,
  logoutRequest,
  logoutResponse,
  postForm,
  redirectQuery,
  signRoot,
} from './helpers/saml-logout.js';

const IDP = 'urn:forge:idp';
const NAME_ID = 'nameid-never-logged-7f3a';
const MESSAGE_ID = '_message-id-never-logged-91c2';
let store: TestStore;
let server: ServeProcess;
let orgId: string;
let idpKey: TestKeyPair;
const saml = () => `${server.base}/organizations/${orgId}/idp/saml`;
const slo = () => `${saml()}/logout/callback`;

const logLines = () => jsonLogLines(server);
/** Posts a form to the SLO endpoint with `requestId` as X-Request-Id. */
const postSlo = (body: string, requestId: string) =>
  fetch(slo(), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-request-id': requestId },
    body,
  });
const refusal = (requestId: string) =>
  waitFor(
    async () => logLines().filter((l) => l.requestId === requestId && l.msg === 'SAML logout message refused'),
    (l) => l.length > 0,
  );

beforeAll(async () => {
  store = await freshStore();
  const imported = await runCli(['import', DEMO_FILE], store.env);
  if (imported.code !== 0) throw new Error(imported.stderr);
  orgId = JSON.parse(imported.stdout).organisations.acme.id;
  server = await startServe({ ...store.env, LOG_LEVEL: 'info' });
  idpKey = await testKeyPair('forge-idp');
  const owner = await call(`${server.base}/v1.1/users/login`, {
    body: { username: 'owner@acme.example', password: 'demo-owner-passphrase' },
  });
  expect(owner.status).toBe(200);
  const body = { entityId: IDP, ssoUrl: 'https://idp.example/sso', signingCertificates: [idpKey.certificate] };
  await configureSaml(server.base, orgId, owner.body.Token.access_token, body);
}, 120_000);
afterAll(async () => {
  await server?.stop('SIGKILL');
  await store?.cleanup();
});

describe('refused SAML logout messages are logged with their cause, never their content', () => {
  const request = (destination: string) =>
    logoutRequest({ issuer: IDP, destination, nameId: NAME_ID, id: MESSAGE_ID, notOnOrAfter: 300 });
  const sent: string[] = [];

  it('an unsigned LogoutRequest (HTTP-POST): the check, binding and type are logged', async () => {
    const body = postForm('SAMLRequest', request(slo()));
    sent.push(new URLSearchParams(body).get('SAMLRequest')!);
    const res = await postSlo(body, 'slo-unsigned');
    expect(res.status).toBe(400);
    const [line] = await refusal('slo-unsigned');
    expect(line).toMatchObject({
      level: 40,
      orgId,
      binding: 'HTTP-POST',
      type: 'LogoutRequest',
      check: 'the message is not signed (XML signature)',
    });
  });

  it('a signed LogoutRequest to another Destination (HTTP-Redirect): the check is logged', async () => {
    const query = redirectQuery('SAMLRequest', request('https://other-sp.example/slo'), idpKey);
    sent.push(decodeURIComponent(/SAMLRequest=([^&]+)/.exec(query)![1]!));
    const res = await fetch(`${slo()}?${query}`, { headers: { 'x-request-id': 'slo-destination' } });
    expect(res.status).toBe(400);
    const [line] = await refusal('slo-destination');
    expect(line).toMatchObject({
      binding: 'HTTP-Redirect',
      type: 'LogoutRequest',
      check: 'the message was sent to another service (Destination)',
    });
  });

  it('a LogoutResponse answering no request Assent sent: the check is logged', async () => {
    const xml = signRoot(logoutResponse({ issuer: IDP, destination: slo(), inResponseTo: MESSAGE_ID }), idpKey);
    const body = postForm('SAMLResponse', xml);
    sent.push(new URLSearchParams(body).get('SAMLResponse')!);
    const res = await postSlo(body, 'slo-unknown');
    expect(res.status).toBe(400);
    const [line] = await refusal('slo-unknown');
    expect(line).toMatchObject({ binding: 'HTTP-POST', type: 'LogoutResponse' });
    expect(line!.check).toMatch(/InResponseTo/);
  });

  it('no log line carries the NameID, the message ID or the encoded message', () => {
    const output = server.stdout() + server.stderr();
    expect(output).toContain('slo-destination'); // the lines are there
    for (const value of [NAME_ID, MESSAGE_ID, ...sent, ...sent.map((s) => encodeURIComponent(s))])
      expect(output).not.toContain(value);
  });
});
