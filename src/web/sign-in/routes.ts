/**
 * Sign-in and sign-out of a web front end (docs/web.md "Sessions", "Sign-in"), registered once per
 * front end: `GET|POST {base}/sign-in` (with `?organisation={orgID}` the organisation's other ways
 * too, where the front end offers them), `POST {base}/sign-out`. Both front ends share one session:
 * signing in to either signs in to both (the console then checks roles per organisation).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  deviceOf,
  FORGOT_ANSWER,
  type IdentityService,
  type Passkeys,
  type PasswordService,
  type SecondStep,
  SecondStepExpired,
  type WebSessions,
} from '../../identity/index.js';
import { AssentError } from '../../platform/core/errors.js';
import { httpHeadersOf, httpStatusOf } from '../../platform/http/errors.js';
import type { Operation } from '../../platform/http/policy.js';
import { seeOther, sendPage } from '../shared/html.js';
import { passkeyAnswer } from '../shared/passkey-answer.js';
import { ForgotPasswordPage, SecondFactorPage, SignInPage, type SignInWays, safeNext } from './page.js';
import { PasskeyForm, SecondFactorForm, SignInForm, SignInQuery } from './schemas.js';

/** Sets, reads or clears one cookie (plugin.ts knows its name and flags). */
export interface CookieJar {
  set(reply: FastifyReply, value: string): void;
  clear(reply: FastifyReply): void;
  /** The value the browser sent, or undefined. */
  read(request: FastifyRequest): string | undefined;
}

/**
 * Signs the browser in as a user whose sign-in the caller has just checked (password, external
 * provider or wallet): ends any session it had and sets a new cookie.
 */
export async function openWebSession(
  sessions: WebSessions,
  cookie: CookieJar,
  request: FastifyRequest,
  reply: FastifyReply,
  userId: string,
): Promise<void> {
  // Threat: session fixation; any session this browser had ends, and a new cookie is issued.
  await sessions.end(request.webCookie);
  const opened = await sessions.open(userId, deviceOf(request));
  cookie.set(reply, opened.cookie);
}

/** One front end's sign-in: its path prefix, name and operations. */
export interface SignInOptions {
  identity: IdentityService;
  sessions: WebSessions;
  cookie: CookieJar;
  /** `/dashboard` or `/console` (not `prefix`: Fastify would prefix the routes with it). */
  base: string;
  /** Shown in the page's header. */
  app: string;
  operations: {
    page: Operation;
    submit: Operation;
    secondFactor: Operation;
    secondFactorPasskey: Operation;
    passkeyOptions: Operation;
    passkey: Operation;
    forgotPage: Operation;
    forgot: Operation;
    signOut: Operation;
  };
  /** Asks a person with a second factor for a code before the session opens (docs/security.md). */
  secondStep: SecondStep;
  /** Passkey sign-ins, and passkeys as the second step (docs/security.md "Passkeys"). */
  passkeys: Passkeys;
  /** The forgotten-password mail (docs/identity.md "Passwords"). */
  passwords: PasswordService;
  /** The other ways an organisation's page offers (the dashboard's); absent: password only. */
  ways?: (orgId: string, next: string) => Promise<SignInWays>;
}

/** The sign-in and sign-out routes of one front end. */
export const signInRoutes: FastifyPluginAsyncTypebox<SignInOptions> = async (app, opts) => {
  const { identity, sessions, cookie, base, operations, secondStep, passkeys } = opts;
  const action = `${base}/sign-in`;
  const secondAction = `${base}/sign-in/second-factor`;
  const second = (next: string, mfaToken: string, error?: string) =>
    SecondFactorPage({ next, action: secondAction, app: opts.app, home: base, mfaToken, error });
  const page = async (next: string, organisation: string | undefined, error?: string, username?: string) => {
    // An unknown organisation shows the plain page, as one without other ways does: no oracle.
    const ways = organisation && opts.ways ? await opts.ways(organisation, next) : undefined;
    return SignInPage({ next, action, app: opts.app, home: base, error, username, organisation, ways });
  };

  app.get(action, {
    config: { operation: operations.page, web: 'public' },
    schema: { querystring: SignInQuery },
    handler: async (req, reply) => {
      const next = safeNext(req.query.next, base);
      if (req.webSession) return reply.redirect(next, 303);
      return sendPage(reply, await page(next, req.query.organisation));
    },
  });

  app.post(action, {
    config: { operation: operations.submit, web: 'public' },
    schema: { body: SignInForm },
    handler: async (req, reply) => {
      const next = safeNext(req.body.next, base);
      try {
        // The same check as the login API: throttle, timing, re-hash (IdentityService.checkPassword).
        const profile = await identity.checkPassword(req.body.username, req.body.password, req.ip);
        const clientId = await identity.resolveClient(undefined);
        const mfaToken = await secondStep.begin(profile.row.id, clientId, 'web');
        if (mfaToken) return sendPage(reply, second(next, mfaToken));
        await openWebSession(sessions, cookie, req, reply, profile.row.id);
        return seeOther(reply, next, false);
      } catch (err) {
        if (!(err instanceof AssentError) || (httpStatusOf(err) !== 401 && httpStatusOf(err) !== 429)) throw err;
        const error =
          httpStatusOf(err) === 429
            ? 'Too many attempts. Wait a while, then try again.'
            : 'Wrong username or password.';
        reply.headers(httpHeadersOf(err));
        return sendPage(reply, await page(next, req.body.organisation, error, req.body.username), httpStatusOf(err));
      }
    },
  });

  app.post(secondAction, {
    config: { operation: operations.secondFactor, web: 'public' },
    schema: { body: SecondFactorForm },
    handler: async (req, reply) => {
      const next = safeNext(req.body.next, base);
      try {
        const { code, recoverycode } = req.body;
        const passkey = passkeyAnswer(req.body.response);
        const done = await secondStep.complete(req.body.mfa_token, { code, recoverycode, passkey }, true);
        await openWebSession(sessions, cookie, req, reply, done.userId);
        return seeOther(reply, next, false);
      } catch (err) {
        if (!(err instanceof AssentError) || ![400, 429].includes(httpStatusOf(err))) throw err;
        reply.headers(httpHeadersOf(err));
        // An expired or spent step starts again at the password; a wrong code may be tried again on the same step.
        if (err instanceof SecondStepExpired) return sendPage(reply, await page(next, undefined, err.message), 400);
        const error = httpStatusOf(err) === 429 ? 'Too many wrong codes. Wait a while, then try again.' : err.message;
        return sendPage(reply, second(next, req.body.mfa_token, error), httpStatusOf(err));
      }
    },
  });

  app.post(`${base}/sign-in/passkey/options`, {
    config: { operation: operations.passkeyOptions, web: 'public' },
    handler: () => passkeys.authenticationOptions(),
  });

  app.post(`${base}/sign-in/passkey`, {
    config: { operation: operations.passkey, web: 'public' },
    schema: { body: PasskeyForm },
    handler: async (req, reply) => {
      const next = safeNext(req.body.next, base);
      try {
        const userId = await passkeys.signIn((passkeyAnswer(req.body.response) ?? {}) as never, req.ip);
        await openWebSession(sessions, cookie, req, reply, userId);
        return seeOther(reply, next, false);
      } catch (err) {
        if (!(err instanceof AssentError) || ![401, 429].includes(httpStatusOf(err))) throw err;
        reply.headers(httpHeadersOf(err));
        return sendPage(reply, await page(next, undefined, err.message), httpStatusOf(err));
      }
    },
  });

  app.post(`${secondAction}/passkey-options`, {
    config: { operation: operations.secondFactorPasskey, web: 'public' },
    schema: { body: Type.Object({ mfa_token: Type.String({ minLength: 1, maxLength: 100 }) }) },
    handler: async (req) => passkeys.authenticationOptions(await secondStep.person(req.body.mfa_token, true)),
  });

  app.get(`${base}/forgot-password`, {
    config: { operation: operations.forgotPage, web: 'public' },
    handler: (_req, reply) => sendPage(reply, ForgotPasswordPage({ app: opts.app, home: base })),
  });

  app.post(`${base}/forgot-password`, {
    config: { operation: operations.forgot, web: 'public' },
    schema: { body: Type.Object({ username: Type.String({ minLength: 1, maxLength: 320 }) }) },
    handler: async (req, reply) => {
      try {
        // The API's rules: the same answer for every name, a rate limit, the mail sent after the answer.
        await opts.passwords.requestReset(req.body.username, req.ip, req.log);
      } catch (err) {
        if (!(err instanceof AssentError) || httpStatusOf(err) !== 429) throw err;
        reply.headers(httpHeadersOf(err));
        const error = 'Too many requests. Wait a while, then try again.';
        return sendPage(reply, ForgotPasswordPage({ app: opts.app, home: base, error }), 429);
      }
      return sendPage(reply, ForgotPasswordPage({ app: opts.app, home: base, sent: FORGOT_ANSWER }));
    },
  });

  app.post(`${base}/sign-out`, {
    config: { operation: operations.signOut, web: 'signed-in', signIn: action, factorExempt: true },
    schema: { body: Type.Object({ _csrf: Type.Optional(Type.String({ maxLength: 100 })) }) },
    handler: async (req, reply) => {
      await sessions.end(req.webCookie);
      cookie.clear(reply);
      return seeOther(reply, action, req.headers['hx-request'] === 'true');
    },
  });
};
