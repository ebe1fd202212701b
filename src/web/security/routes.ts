/**
 * Routes of the Security page (docs/security.md; docs/web.md "Security"), for each front end `{base}` (`/dashboard`,
 * `/console`):
 * - `GET {base}/security`: the page;
 * - `POST {base}/security/totp`: starts setting up an authenticator app, then 303 to `GET {base}/security/totp`, the
 *   pending enrolment (QR code, key, confirmation form);
 * - `POST {base}/security/totp/confirm`: confirms it; the answer page shows the ten recovery codes once;
 * - `POST {base}/security/recovery-codes`: ten new codes, after the password and a code (a fresh sign-in);
 * - `POST {base}/security/totp/remove`: removes the app, after the password and a code; other sessions end;
 * - `POST {base}/security/sessions/{sessionID}/end`, `POST {base}/security/sessions/end-others`: ends sessions;
 * - `POST {base}/security/passkeys/options` (the passkey script's JSON), `POST {base}/security/passkeys`: adds a passkey
 *   (the first factor also shows ten recovery codes); `POST …/passkeys/{passkeyID}`: renames one;
 *   `POST …/passkeys/{passkeyID}/remove`: removes one, after the password and a code.
 * They call the services of the API's `{base}/user/mfa*`, `{base}/user/reauthenticate` and `{base}/user/sessions`, so
 * the rules are theirs.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { OwnSessions, Passkeys, Reauthentication, SecondFactors, WebSession } from '../../identity/index.js';
import { AssentError } from '../../platform/core/errors.js';
import { httpStatusOf } from '../../platform/http/errors.js';
import type { Operation } from '../../platform/http/policy.js';
import { principalOf } from '../dashboard/views.js';
import { seeOther, sendPage } from '../shared/html.js';
import { passkeyAnswer } from '../shared/passkey-answer.js';
import { EnrolmentPage, RecoveryCodesPage, type SecurityFrame, SecurityPage } from './page.js';

/** What the Security pages call. */
export interface SecurityDeps {
  factors: { factors: SecondFactors; reauth: Reauthentication; ownSessions: OwnSessions; passkeys: Passkeys };
}

/** One front end's Security page: its path, name, navigation and operations (`web.{dashboard,console}.security…`). */
export interface SecurityOptions extends SecurityDeps {
  base: '/dashboard' | '/console';
  app: string;
  nav: Array<{ href: string; label: string }>;
}

const Csrf = { _csrf: Type.Optional(Type.String({ maxLength: 100 })) };
const CodeForm = Type.Object({ ...Csrf, code: Type.String({ minLength: 1, maxLength: 20 }) });
const ReauthForm = Type.Object({
  ...Csrf,
  password: Type.String({ maxLength: 1024 }),
  code: Type.String({ minLength: 1, maxLength: 40 }),
});
const PasskeyParams = Type.Object({ passkeyID: Type.String({ maxLength: 100 }) });
const PasskeyAddForm = Type.Object({
  ...Csrf,
  name: Type.String({ minLength: 1, maxLength: 100 }),
  response: Type.String({ minLength: 1, maxLength: 20000 }),
});
const Done = Type.Object({ done: Type.Optional(Type.String({ maxLength: 20 })) });
const DONE: Record<string, string> = {
  removed: 'The authenticator app was removed; your other sessions ended.',
  ended: 'The session ended.',
  others: 'Every other session ended.',
  passkey: 'The passkey was added.',
  renamed: 'The passkey was renamed.',
  'passkey-removed': 'The passkey was removed; your other sessions ended.',
};

/** A code as typed: six digits are the app's, anything else a recovery code. */
const asCode = (typed: string) =>
  /^\d{6}$/.test(typed.replace(/\s+/g, '')) ? { code: typed } : { recoverycode: typed };

/** The Security routes of one front end. */
export const securityRoutes: FastifyPluginAsyncTypebox<SecurityOptions> = async (app, opts) => {
  const { base } = opts;
  const { factors, reauth, ownSessions, passkeys } = opts.factors;
  // The console's staff policy sends staff without a second factor here: this page must stay reachable for them.
  const signedIn = { web: 'signed-in', signIn: `${base}/sign-in`, factorExempt: true } as const;
  const front = base === '/dashboard' ? 'dashboard' : 'console';
  const op = (name: string) => `web.${front}.security${name}` as Operation;
  const session = (req: FastifyRequest) => req.webSession as WebSession;
  const frame = (req: FastifyRequest): SecurityFrame => ({ ...opts, csrfToken: session(req).csrfToken });
  const page = async (
    req: FastifyRequest,
    reply: FastifyReply,
    extra: { done?: string; error?: string },
    code = 200,
  ) => {
    const principal = principalOf(session(req));
    const [status, sessions, keys] = await Promise.all([
      factors.status(principal.userId),
      ownSessions.list(principal),
      passkeys.list(principal.userId),
    ]);
    const props = {
      frame: frame(req),
      totp: status.TOTP,
      recoveryCodesLeft: status.RecoveryCodesLeft,
      sessions,
      passkeys: keys,
      ...extra,
    };
    return sendPage(reply, SecurityPage({ ...props, required: req.webFactorMissing }), code);
  };
  /** The re-authentication a change's form carries: the password, and a code of the app or a recovery code. */
  const reauthenticate = (req: FastifyRequest & { body: { password: string; code: string } }) =>
    reauth.confirm(principalOf(session(req)), { password: req.body.password, ...asCode(req.body.code) }, req.ip);
  /** The page again with a refusal's message and status (a wrong password or code, a throttle). */
  const refused = async (req: FastifyRequest, reply: FastifyReply, err: unknown) => {
    if (!(err instanceof AssentError) || httpStatusOf(err) >= 500) throw err;
    return page(req, reply, { error: err.message }, httpStatusOf(err));
  };

  app.get(`${base}/security`, {
    config: { operation: op(''), ...signedIn },
    schema: { querystring: Done },
    handler: (req, reply) => page(req, reply, { done: DONE[req.query.done ?? ''] }),
  });

  app.post(`${base}/security/totp`, {
    config: { operation: op('.totp.start'), ...signedIn },
    schema: { body: Type.Object(Csrf) },
    handler: async (req, reply) => {
      try {
        await factors.startTotp(session(req).userId);
      } catch (err) {
        return refused(req, reply, err);
      }
      return seeOther(reply, `${base}/security/totp`, false);
    },
  });

  app.get(`${base}/security/totp`, {
    config: { operation: op('.totp'), ...signedIn },
    handler: async (req, reply) => {
      const enrolment = await factors.pendingTotp(session(req).userId);
      if (!enrolment) return seeOther(reply, `${base}/security`, false);
      return sendPage(reply, EnrolmentPage({ frame: frame(req), enrolment }));
    },
  });

  app.post(`${base}/security/totp/confirm`, {
    config: { operation: op('.totp.confirm'), ...signedIn },
    schema: { body: CodeForm },
    handler: async (req, reply) => {
      const userId = session(req).userId;
      try {
        const { RecoveryCodes } = await factors.confirmTotp(userId, req.body.code);
        return sendPage(reply, RecoveryCodesPage({ frame: frame(req), codes: RecoveryCodes }));
      } catch (err) {
        const enrolment = await factors.pendingTotp(userId);
        if (!enrolment || !(err instanceof AssentError) || httpStatusOf(err) >= 500) throw err;
        return sendPage(reply, EnrolmentPage({ frame: frame(req), enrolment, error: err.message }), httpStatusOf(err));
      }
    },
  });

  app.post(`${base}/security/recovery-codes`, {
    config: { operation: op('.recovery-codes'), ...signedIn },
    schema: { body: ReauthForm },
    handler: async (req, reply) => {
      const principal = principalOf(session(req));
      try {
        await reauthenticate(req);
        const { RecoveryCodes } = await factors.renewRecoveryCodes(principal);
        return sendPage(reply, RecoveryCodesPage({ frame: frame(req), codes: RecoveryCodes }));
      } catch (err) {
        return refused(req, reply, err);
      }
    },
  });

  app.post(`${base}/security/totp/remove`, {
    config: { operation: op('.totp.remove'), ...signedIn },
    schema: { body: ReauthForm },
    handler: async (req, reply) => {
      const principal = principalOf(session(req));
      try {
        await reauthenticate(req);
        await factors.removeTotp(principal);
      } catch (err) {
        return refused(req, reply, err);
      }
      return seeOther(reply, `${base}/security?done=removed`, false);
    },
  });

  app.post(`${base}/security/sessions/:sessionID/end`, {
    config: { operation: op('.sessions.end'), ...signedIn },
    schema: { params: Type.Object({ sessionID: Type.String({ maxLength: 100 }) }), body: Type.Object(Csrf) },
    handler: async (req, reply) => {
      await ownSessions.end(principalOf(session(req)), req.params.sessionID);
      return seeOther(reply, `${base}/security?done=ended`, false);
    },
  });

  app.post(`${base}/security/sessions/end-others`, {
    config: { operation: op('.sessions.end-others'), ...signedIn },
    schema: { body: Type.Object(Csrf) },
    handler: async (req, reply) => {
      await ownSessions.endOthers(principalOf(session(req)));
      return seeOther(reply, `${base}/security?done=others`, false);
    },
  });

  app.post(`${base}/security/passkeys/options`, {
    config: { operation: op('.passkeys.options'), ...signedIn },
    handler: (req) => passkeys.registrationOptions(session(req).userId),
  });

  app.post(`${base}/security/passkeys`, {
    config: { operation: op('.passkeys.add'), ...signedIn },
    schema: { body: PasskeyAddForm },
    handler: async (req, reply) => {
      const userId = session(req).userId;
      try {
        await passkeys.register(userId, (passkeyAnswer(req.body.response) ?? {}) as never, req.body.name);
      } catch (err) {
        return refused(req, reply, err);
      }
      const codes = await factors.firstRecoveryCodes(userId);
      if (codes) return sendPage(reply, RecoveryCodesPage({ frame: frame(req), codes: codes.RecoveryCodes }));
      return seeOther(reply, `${base}/security?done=passkey`, false);
    },
  });

  app.post(`${base}/security/passkeys/:passkeyID`, {
    config: { operation: op('.passkeys.rename'), ...signedIn },
    schema: {
      params: PasskeyParams,
      body: Type.Object({ ...Csrf, name: Type.String({ minLength: 1, maxLength: 100 }) }),
    },
    handler: async (req, reply) => {
      await passkeys.rename(session(req).userId, req.params.passkeyID, req.body.name);
      return seeOther(reply, `${base}/security?done=renamed`, false);
    },
  });

  app.post(`${base}/security/passkeys/:passkeyID/remove`, {
    config: { operation: op('.passkeys.remove'), ...signedIn },
    schema: { params: PasskeyParams, body: ReauthForm },
    handler: async (req, reply) => {
      const principal = principalOf(session(req));
      try {
        await reauthenticate(req);
        await passkeys.remove(principal, req.params.passkeyID);
      } catch (err) {
        return refused(req, reply, err);
      }
      return seeOther(reply, `${base}/security?done=passkey-removed`, false);
    },
  });
};
