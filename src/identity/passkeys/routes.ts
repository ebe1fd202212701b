/**
 * Routes of passkeys (docs/security.md "Passkeys"), under `{base}`:
 * - `GET /user/passkeys`; `POST /user/passkeys/registration-options`, then `POST /user/passkeys` with the
 *   authenticator's answer and a name; `PUT /user/passkeys/{passkeyID}` renames; `DELETE …` removes (a recent sign-in);
 * - `POST /users/login/passkey-options`, then `POST /users/login/passkey`: a sign-in with a passkey alone;
 * - `POST /users/login/mfa/passkey-options`: the person's passkeys for a login's second step, answered at
 *   `POST /users/login/mfa` with `passkey`.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors } from '../../platform/http/schemas.js';
import type { SecondStep } from '../factors/login.js';
import type { SecondFactors } from '../factors/service.js';
import { deviceOf } from '../sessions/device.js';
import type { IdentityService } from '../sessions/service.js';
import type { Passkeys } from './service.js';

const tags = ['identity'];
const security = [{ bearer: [] }];
/** A WebAuthn answer as `@simplewebauthn/browser` gives it (JSON); checked by the verification. */
const Answer = Type.Object({}, { additionalProperties: true, description: 'the authenticator’s answer (JSON)' });
const Name = Type.String({ minLength: 1, maxLength: 100 });
const Options = Type.Object({}, { additionalProperties: true, description: 'WebAuthn options (JSON)' });
const Passkey = Type.Object({
  ID: Type.String(),
  Name: Type.String(),
  CreatedAt: Type.String({ format: 'date-time' }),
  LastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  DeviceType: Type.String(),
  BackedUp: Type.Boolean(),
});

/** What the passkey routes call. */
export interface PasskeyRouteDeps {
  passkeys: Passkeys;
  factors: SecondFactors;
  secondStep: SecondStep;
  identity: IdentityService;
}

/** The routes under `{base}`. */
export const passkeyRoutes: FastifyPluginAsyncTypebox<PasskeyRouteDeps> = async (v1, deps) => {
  const { passkeys, factors, secondStep, identity } = deps;

  v1.get('/user/passkeys', {
    config: { operation: 'user.passkeys.list' },
    schema: {
      tags,
      security,
      summary: 'Your passkeys',
      response: { 200: Type.Object({ Passkeys: Type.Array(Passkey) }), ...errors(401) },
    },
    handler: async (req) => ({ Passkeys: await passkeys.list(req.principal!.userId) }),
  });

  v1.post('/user/passkeys/registration-options', {
    config: { operation: 'user.passkeys.options' },
    schema: {
      tags,
      security,
      summary: 'Start registering a passkey: the options for navigator.credentials.create (WebAuthn)',
      response: { 200: Options, ...errors(401) },
    },
    handler: (req) => passkeys.registrationOptions(req.principal!.userId),
  });

  v1.post('/user/passkeys', {
    config: { operation: 'user.passkeys.register' },
    schema: {
      tags,
      security,
      body: Type.Object({ response: Answer, name: Name }),
      summary: 'Register a passkey with the authenticator’s answer; the first factor also answers ten recovery codes',
      response: {
        201: Type.Object({ Passkey, RecoveryCodes: Type.Optional(Type.Array(Type.String())) }),
        ...errors(400, 401),
      },
    },
    handler: async (req, reply) => {
      const userId = req.principal!.userId;
      const passkey = await passkeys.register(userId, req.body.response as never, req.body.name);
      const codes = await factors.firstRecoveryCodes(userId);
      return reply.code(201).send({ Passkey: passkey, ...(codes ?? {}) });
    },
  });

  v1.put('/user/passkeys/:passkeyID', {
    config: { operation: 'user.passkeys.rename' },
    schema: {
      tags,
      security,
      params: Type.Object({ passkeyID: Type.String() }),
      body: Type.Object({ name: Name }),
      summary: 'Rename one of your passkeys',
      response: { 200: Passkey, ...errors(400, 401, 404) },
    },
    handler: (req) => passkeys.rename(req.principal!.userId, req.params.passkeyID, req.body.name),
  });

  v1.delete('/user/passkeys/:passkeyID', {
    config: { operation: 'user.passkeys.remove' },
    schema: {
      tags,
      security,
      params: Type.Object({ passkeyID: Type.String() }),
      summary: 'Remove one of your passkeys (a sign-in of the last 5 minutes; ends your other sessions)',
      response: { 204: Type.Null(), ...errors(401, 404) },
    },
    handler: async (req, reply) => {
      await passkeys.remove(req.principal!, req.params.passkeyID);
      return reply.code(204).send(null);
    },
  });

  v1.post('/users/login/passkey-options', {
    config: { operation: 'users.login.passkey.options' },
    schema: {
      tags,
      summary: 'Start a sign-in with a passkey: the options for navigator.credentials.get (WebAuthn)',
      response: { 200: Options },
    },
    handler: () => passkeys.authenticationOptions(),
  });

  v1.post('/users/login/passkey', {
    config: { operation: 'users.login.passkey', oauth: true },
    schema: {
      tags,
      body: Type.Object({ response: Answer, clientid: Type.Optional(Type.String({ maxLength: 200 })) }),
      summary: 'Sign in with a passkey alone: answers the login response (User and Token)',
      response: { 200: Type.Ref('LoginResponse'), ...errors(400, 401, 429) },
    },
    handler: async (req) => {
      const userId = await passkeys.signIn(req.body.response as never, req.ip);
      const clientId = await identity.resolveClient(req.body.clientid);
      return identity.loginAs(userId, clientId, false, deviceOf(req));
    },
  });

  v1.post('/users/login/mfa/passkey-options', {
    config: { operation: 'users.login.mfa.passkey.options' },
    schema: {
      tags,
      body: Type.Object({ mfa_token: Type.String({ minLength: 1, maxLength: 100 }) }),
      summary: 'The passkeys of a login’s second step: options for navigator.credentials.get',
      response: { 200: Options, ...errors(400) },
    },
    handler: async (req) => passkeys.authenticationOptions(await secondStep.person(req.body.mfa_token, false)),
  });
};
