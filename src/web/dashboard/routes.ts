/**
 * Routes of the privacy dashboard (docs/web.md "Privacy dashboard"), at `{PUBLIC_URL}/dashboard`:
 * - `GET /dashboard` → the consents (sign-in and sign-out: `../sign-in/routes.ts`)
 * - `GET /dashboard/consents`; `POST /dashboard/consents/{organizationID}/{purposeID}/{attributeID}`
 * - `GET /dashboard/history?org=&startid=`; `GET /dashboard/history/{organizationID}/{eventID}/receipt`
 * - `GET /dashboard/data`; `GET /dashboard/data/export`; `POST /dashboard/data/profile`; `POST /dashboard/data/password`;
 *   `GET|POST /dashboard/data/delete` (the profile image: `image-routes.ts`)
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { type AccountService, sendExport } from '../../accounts/index.js';
import { attributeChoice, type ReceiptService, requestMeta } from '../../consent/index.js';
import type { PasswordService, UserService, WebSession, WebSessions } from '../../identity/index.js';
import { seeOther, sendPage } from '../shared/html.js';
import type { CookieJar } from '../sign-in/routes.js';
import { AttributeRow, ConsentsPage } from './consents.js';
import { DataPage, DeletePage } from './data.js';
import { HistoryPage } from './history.js';
import {
  ConsentForm,
  ConsentParams,
  DeleteForm,
  HistoryQuery,
  PasswordForm,
  ProfileForm,
  ReceiptParams,
} from './schemas.js';
import { type DashboardReads, myConsents, myHistory, principalOf } from './views.js';

/** What the dashboard calls. */
export interface DashboardDeps extends DashboardReads {
  sessions: WebSessions;
  users: UserService;
  passwords: PasswordService;
  accounts: AccountService;
  receipts: ReceiptService;
  /** Sets or clears the session cookie (plugin.ts knows its name and flags). */
  cookie: CookieJar;
}

const signedIn = { web: 'signed-in', signIn: '/dashboard/sign-in' } as const;
const session = (req: FastifyRequest) => req.webSession as WebSession;
const htmx = (req: FastifyRequest) => req.headers['hx-request'] === 'true';

/** @param opts - the services and the cookie helper. */
export const dashboardRoutes: FastifyPluginAsyncTypebox<DashboardDeps> = async (app, deps) => {
  app.get('/dashboard', { config: { operation: 'web.dashboard.home', ...signedIn } }, (_req, reply) =>
    reply.redirect('/dashboard/consents', 303),
  );

  app.get('/dashboard/consents', { config: { operation: 'web.dashboard.consents', ...signedIn } }, async (req, reply) =>
    sendPage(reply, ConsentsPage({ orgs: await myConsents(deps, session(req)), csrfToken: session(req).csrfToken })),
  );

  app.post('/dashboard/consents/:organizationID/:purposeID/:attributeID', {
    config: { operation: 'web.dashboard.consent.update', ...signedIn },
    schema: {
      params: ConsentParams,
      body: ConsentForm,
    },
    handler: async (req, reply) => {
      const s = session(req);
      const { organizationID: orgId, purposeID, attributeID } = req.params;
      // The Days field belongs to AskMe (docs/web.md "Privacy dashboard"): with Allow or Disallow it is not
      // read, or the API's rule (values.ts `choiceOf`) would turn a leftover number into an AskMe.
      const askMe = req.body.consented?.trim().toLowerCase() === 'askme';
      const days = askMe && req.body.days ? Number(req.body.days) : undefined;
      // The API's rule for one attribute (values.ts), then the API's change (ConsentService.change).
      const { value, days: d } = attributeChoice(req.body.consented, days);
      const path = { orgId, userId: s.userId };
      await deps.consents.change(
        principalOf(s),
        path,
        purposeID,
        [{ attributeId: attributeID, value, days: d }],
        requestMeta(req),
      );
      if (!htmx(req)) return seeOther(reply, `/dashboard/consents#a-${purposeID}-${attributeID}`, false);
      const body = deps.consents.purposeBody(await deps.consents.read(principalOf(s), path, purposeID));
      const attribute = body.Consents.Consents.find((a) => a.ID === attributeID)!;
      const row = AttributeRow({
        orgId,
        purposeId: purposeID,
        attribute,
        editable: true,
        csrfToken: s.csrfToken,
        saved: true,
      });
      return sendPage(reply, row, 200, true);
    },
  });

  app.get('/dashboard/history', {
    config: { operation: 'web.dashboard.history', ...signedIn },
    schema: { querystring: HistoryQuery },
    handler: async (req, reply) => {
      const s = session(req);
      const views = await myHistory(deps, s, req.query.org, req.query.startid);
      return sendPage(reply, HistoryPage({ views, userId: s.userId, csrfToken: s.csrfToken }));
    },
  });

  app.get('/dashboard/history/:organizationID/:eventID/receipt', {
    config: { operation: 'web.dashboard.receipt', ...signedIn },
    schema: { params: ReceiptParams },
    handler: async (req, reply) => {
      const s = session(req);
      // The API's receipt (ReceiptService): the same access rule, the same signature.
      const { receipt, jws } = await deps.receipts.receipt(
        principalOf(s),
        req.params.organizationID,
        s.userId,
        req.params.eventID,
      );
      return reply
        .type('application/json; charset=utf-8')
        .header('Cache-Control', 'no-store')
        .header('Content-Disposition', `attachment; filename="consent-receipt-${req.params.eventID}.json"`)
        .send(JSON.stringify({ Receipt: receipt, JWS: jws }, null, 2));
    },
  });

  app.get('/dashboard/data', {
    config: { operation: 'web.dashboard.data', ...signedIn },
    schema: { querystring: Type.Object({ done: Type.Optional(Type.String({ maxLength: 20 })) }) },
    handler: async (req, reply) => {
      const s = session(req);
      const done = { profile: 'Profile saved.', password: 'Password changed.', image: 'Profile image saved.' }[
        req.query.done ?? ''
      ];
      const user = await deps.users.me(s.userId);
      return sendPage(reply, DataPage({ user, csrfToken: s.csrfToken, done }));
    },
  });

  app.get(
    '/dashboard/data/export',
    { config: { operation: 'web.dashboard.export', ...signedIn } },
    async (req, reply) =>
      // The API's export (AccountService.exportData, GDPR Art. 15 and 20): the session's own data only.
      sendExport(reply, await deps.accounts.exportData(session(req).userId)),
  );

  app.post('/dashboard/data/profile', {
    config: { operation: 'web.dashboard.profile.update', ...signedIn },
    schema: { body: ProfileForm },
    handler: async (req, reply) => {
      await deps.users.updateProfile(session(req).userId, { name: req.body.name, phone: req.body.phone });
      return seeOther(reply, '/dashboard/data?done=profile', false);
    },
  });

  app.post('/dashboard/data/password', {
    config: { operation: 'web.dashboard.password.update', ...signedIn },
    schema: { body: PasswordForm },
    handler: async (req, reply) => {
      const { password, currentpassword } = req.body;
      // The API's change: policy, current password, every other session ended (PasswordService).
      await deps.passwords.changeWithSession(principalOf(session(req)), { password, currentpassword }, req.ip, req.log);
      return seeOther(reply, '/dashboard/data?done=password', false);
    },
  });

  app.get('/dashboard/data/delete', { config: { operation: 'web.dashboard.delete.page', ...signedIn } }, (req, reply) =>
    sendPage(reply, DeletePage({ csrfToken: session(req).csrfToken })),
  );

  app.post('/dashboard/data/delete', {
    config: { operation: 'web.dashboard.delete', ...signedIn },
    schema: { body: DeleteForm },
    handler: async (req, reply) => {
      const s = session(req);
      if (req.body.confirm !== 'DELETE')
        return sendPage(reply, DeletePage({ csrfToken: s.csrfToken, error: 'Type DELETE to confirm.' }), 400);
      // The API's deletion (AccountService.delete, GDPR Art. 17): sessions, this one included, end with it.
      await deps.accounts.delete(s.userId);
      deps.cookie.clear(reply);
      return seeOther(reply, '/dashboard/sign-in', false);
    },
  });
};
