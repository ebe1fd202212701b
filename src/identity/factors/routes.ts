/**
 * Routes of second factors (docs/api.md "Second factor"; docs/security.md "Second factors"), under `{base}`:
 * - `GET /user/mfa`: the signed-in person's factors;
 * - `POST /user/mfa/totp`: starts a TOTP enrolment (secret, URI, QR code); `POST /user/mfa/totp/confirm`: confirms it
 *   with a code and answers ten recovery codes; `DELETE /user/mfa/totp`: removes it (a recent sign-in);
 * - `POST /user/mfa/recovery-codes`: ten new recovery codes (a recent sign-in);
 * - `POST /user/reauthenticate`: confirms the password (and a code) for the changes that need a recent sign-in;
 * - `POST /users/login/mfa`: completes a login's second step.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors } from '../../platform/http/schemas.js';
import { deviceOf } from '../sessions/device.js';
import type { MfaLogin } from './completion.js';
import type { Reauthentication } from './reauth.js';
import { ConfirmBody, FactorStatus, MfaLoginBody, ReauthBody, RecoveryCodes, TotpEnrolment } from './schemas.js';
import type { SecondFactors } from './service.js';

const tags = ['identity'];
const security = [{ bearer: [] }];

/** What the second-factor routes call. */
export interface FactorRouteDeps {
  factors: SecondFactors;
  reauth: Reauthentication;
  mfaLogin: MfaLogin;
}

/** The routes under `{base}`. */
export const factorRoutes: FastifyPluginAsyncTypebox<FactorRouteDeps> = async (v1, { factors, reauth, mfaLogin }) => {
  v1.get('/user/mfa', {
    config: { operation: 'user.mfa.read' },
    schema: { tags, security, summary: 'Your second factors', response: { 200: FactorStatus, ...errors(401) } },
    handler: (req) => factors.status(req.principal!.userId),
  });

  v1.post('/user/mfa/totp', {
    config: { operation: 'user.mfa.totp.start' },
    schema: {
      tags,
      security,
      summary: 'Start setting up an authenticator app: its secret and QR code (confirm with a code next)',
      response: { 200: TotpEnrolment, ...errors(401, 409) },
    },
    handler: (req) => factors.startTotp(req.principal!.userId),
  });

  v1.post('/user/mfa/totp/confirm', {
    config: { operation: 'user.mfa.totp.confirm' },
    schema: {
      tags,
      security,
      body: ConfirmBody,
      summary: 'Confirm the authenticator app with a code: answers ten recovery codes, shown this once',
      response: { 200: RecoveryCodes, ...errors(400, 401, 429) },
    },
    handler: (req) => factors.confirmTotp(req.principal!.userId, req.body.code),
  });

  v1.delete('/user/mfa/totp', {
    config: { operation: 'user.mfa.totp.remove' },
    schema: {
      tags,
      security,
      summary:
        'Remove the authenticator app and the recovery codes (a sign-in of the last 5 minutes; ends your other sessions)',
      response: { 204: Type.Null(), ...errors(400, 401) },
    },
    handler: async (req, reply) => {
      await factors.removeTotp(req.principal!);
      return reply.code(204).send(null);
    },
  });

  v1.post('/user/mfa/recovery-codes', {
    config: { operation: 'user.mfa.recovery-codes.renew' },
    schema: {
      tags,
      security,
      summary: 'Ten new recovery codes, shown this once; the old ones stop working (a sign-in of the last 5 minutes)',
      response: { 200: RecoveryCodes, ...errors(400, 401) },
    },
    handler: (req) => factors.renewRecoveryCodes(req.principal!),
  });

  v1.post('/user/reauthenticate', {
    config: { operation: 'user.reauthenticate' },
    schema: {
      tags,
      security,
      body: ReauthBody,
      summary: 'Confirm your password (and a code, with a second factor): your session counts as just signed in',
      response: { 204: Type.Null(), ...errors(400, 401, 429) },
    },
    handler: async (req, reply) => {
      await reauth.confirm(req.principal!, req.body, req.ip);
      return reply.code(204).send(null);
    },
  });

  v1.post('/users/login/mfa', {
    config: { operation: 'users.login.mfa', oauth: true },
    schema: {
      tags,
      body: MfaLoginBody,
      summary:
        'Complete a login that needs a second factor: the mfa_token and a code; answers as the login did ' +
        '(User and Token; the Token alone for POST /users/login)',
      response: { 200: Type.Union([Type.Ref('LoginResponse'), Type.Ref('Token')]), ...errors(400, 403, 429) },
    },
    handler: async (req) => {
      const done = await mfaLogin.complete(req.body, deviceOf(req));
      return done.login === 'token' ? done.result.Token : done.result;
    },
  });
};
