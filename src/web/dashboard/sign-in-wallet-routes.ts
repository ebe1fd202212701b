/**
 * The privacy dashboard's wallet sign-in (docs/web.md "Sign-in"; the rules are
 * `DashboardWalletSignIn`'s, src/provider/wallet/dashboard.ts):
 * - `GET /dashboard/sign-in/wallet?organisation={orgID}&next=`: a new transaction, its QR code and link
 * - `GET /dashboard/sign-in/wallet/status?organisation=&next=`: the status area (htmx, every 2 s)
 * - `POST /dashboard/sign-in/wallet/complete`: cross-device completion → 303 to `next`, signed in
 * - `GET /dashboard/sign-in/wallet/return/{orgID}/{handle}?next=&response_code=`: the wallet's same-device redirect
 * Each step needs this browser's binding cookie, set when the page starts the transaction.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { WebSessions } from '../../identity/index.js';
import { type AssentError, Conflict, InvalidRequest, NotFound } from '../../platform/core/errors.js';
import {
  DASHBOARD_WALLET_RETURN_PATH,
  type DashboardWalletSignIn,
  qrSvg,
  WalletFlowError,
  WalletNotConfiguredError,
} from '../../provider/index.js';
import { seeOther, sendPage } from '../shared/html.js';
import { safeNext } from '../sign-in/page.js';
import { type CookieJar, openWebSession } from '../sign-in/routes.js';
import { SignInWayQuery, WalletReturnParams, WalletReturnQuery } from './schemas.js';
import { ElsewherePage, WALLET_PATH, WalletSignInPage, WalletStatus } from './wallet-sign-in.js';

/** What the routes call. */
export interface WalletSignInDeps {
  walletSignIn: DashboardWalletSignIn;
  sessions: WebSessions;
  /** The session cookie. */
  cookie: CookieJar;
  /** The short-lived cookie binding the transaction to this browser. */
  walletBinding: CookieJar;
}

const BASE = '/dashboard';
const Str = (max: number) => Type.Optional(Type.String({ maxLength: max }));

/** A fixed sentence for each reason a completion is refused (nothing about the transaction's content). */
function refusal(err: WalletFlowError): AssentError {
  if (err.reason === 'wrong_response_code') return new InvalidRequest('This sign-in cannot continue. Start again.');
  return new Conflict(
    err.reason === 'same_device_only'
      ? 'This organisation lets a wallet sign-in finish only in the browser your wallet opens.'
      : 'This sign-in cannot continue. Start again.',
  );
}

/** @param opts - the services and the cookie helpers. */
export const walletSignInRoutes: FastifyPluginAsyncTypebox<WalletSignInDeps> = async (app, deps) => {
  const { walletSignIn, walletBinding } = deps;
  const signIn = async (req: Parameters<typeof openWebSession>[2], reply: FastifyReply, userId: string) => {
    walletBinding.clear(reply);
    await openWebSession(deps.sessions, deps.cookie, req, reply, userId);
  };

  app.get(WALLET_PATH, {
    config: { operation: 'web.dashboard.sign-in.wallet', web: 'public' },
    schema: { querystring: SignInWayQuery },
    handler: async (req, reply) => {
      const next = safeNext(req.query.next, BASE);
      const organisation = req.query.organisation;
      // Every load is a new transaction: an earlier QR code of this browser stops working (docs/web.md
      // "Sign-in").
      const started = await walletSignIn.start(organisation, next, req.ip).catch((err) => {
        if (err instanceof WalletNotConfiguredError)
          throw new NotFound('This organisation has not set up wallet sign-in.');
        throw err;
      });
      walletBinding.set(reply, started.binding);
      const { deepLink, expiresAt, sameDeviceOnly } = started.view;
      const svg = sameDeviceOnly ? '' : await qrSvg(deepLink);
      return sendPage(reply, WalletSignInPage({ organisation, next, deepLink, svg, expiresAt, sameDeviceOnly }));
    },
  });

  app.get(`${WALLET_PATH}/status`, {
    config: { operation: 'web.dashboard.sign-in.wallet.status', web: 'public' },
    schema: { querystring: SignInWayQuery },
    handler: async (req, reply) => {
      const outcome = await walletSignIn.status(walletBinding.read(req));
      const next = safeNext(req.query.next, BASE);
      return sendPage(reply, WalletStatus({ outcome, organisation: req.query.organisation, next }), 200, true);
    },
  });

  app.post(`${WALLET_PATH}/complete`, {
    config: { operation: 'web.dashboard.sign-in.wallet.complete', web: 'public' },
    schema: { body: Type.Object({ next: Str(500) }) },
    handler: async (req, reply) => {
      const userId = await walletSignIn.complete(walletBinding.read(req)).catch((err) => {
        if (err instanceof WalletFlowError) throw refusal(err);
        throw err;
      });
      await signIn(req, reply, userId);
      return seeOther(reply, safeNext(req.body.next, BASE), req.headers['hx-request'] === 'true');
    },
  });

  app.get(`${DASHBOARD_WALLET_RETURN_PATH}/:organizationID/:handle`, {
    config: { operation: 'web.dashboard.sign-in.wallet.return', web: 'public' },
    schema: {
      params: WalletReturnParams,
      querystring: WalletReturnQuery,
    },
    handler: async (req, reply) => {
      const { organizationID, handle } = req.params;
      const binding = walletBinding.read(req);
      const done = await walletSignIn
        .walletReturn(organizationID, handle, binding, req.query.response_code)
        .catch((err) => {
          if (err instanceof WalletFlowError) throw refusal(err);
          throw err;
        });
      if (typeof done !== 'string') return sendPage(reply, ElsewherePage(done));
      await signIn(req, reply, done);
      return seeOther(reply, safeNext(req.query.next, BASE), false);
    },
  });
};
