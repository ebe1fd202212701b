/**
 * Routes of the mobile push section of the console's Integrations page (docs/web.md "Console";
 * docs/notifications.md "Mobile push"). Each follows the policy row of `PUT …/notification-transports`
 * (`api: 'notifications.transports.update'`) and calls `NotificationService.updateTransports` with the
 * body that API takes, so its checks are the only ones (the form schemas reuse its TypeBox limits):
 * - `POST …/integrations/push/fcm`: sets or replaces the service-account key (`fcm`);
 * - `POST …/integrations/push/apns`: sets or edits APNs (`apns`); an empty key keeps the stored one;
 * - `POST …/integrations/push/{fcm|apns}/delete`: removes one (`null`), only with the confirmation box ticked.
 * A change the service refuses (4xx) answers the page with that status and the message beside the form.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../dashboard/views.js';
import { fieldNamedIn } from '../shared/form-state.js';
import { back, type IntegrationsDeps, integrationsRefused, orFormError, shownAgain } from './integrations-data.js';
import { session, signedIn } from './routes.js';
import { ApnsForm, Confirmed, FcmForm, Org } from './schemas.js';

const api = 'notifications.transports.update';

/** The APNs form's field a refusal names (`apns.keyid must …`); `key` last, as `apns.key` starts `apns.keyid`. */
const apnsField = (message: string) =>
  fieldNamedIn(message, ['keyid', 'teamid', 'bundleid', 'key'], {
    keyid: 'apns.keyid',
    teamid: 'apns.teamid',
    bundleid: 'apns.bundleid',
    key: 'apns.key',
  });

/** @param opts - the services. */
export const consolePushRoutes: FastifyPluginAsyncTypebox<IntegrationsDeps> = async (app, deps) => {
  app.post('/console/:organizationID/integrations/push/fcm', {
    config: {
      operation: 'web.console.push.fcm.update',
      ...signedIn,
      api,
      refused: integrationsRefused(deps, 'fcm', ['serviceaccount']),
    },
    schema: { params: Org, body: FcmForm },
    handler: async (req, reply) =>
      orFormError(
        deps,
        req,
        reply,
        'fcm',
        shownAgain(req.body, 'serviceaccount'),
        async () => {
          const orgId = req.params.organizationID;
          await deps.notifications.updateTransports(principalOf(session(req)), orgId, {
            fcm: { serviceaccount: req.body.serviceaccount },
          });
          return back(reply, orgId, 'fcm');
        },
        () => 'serviceaccount',
      ),
  });

  app.post('/console/:organizationID/integrations/push/apns', {
    config: {
      operation: 'web.console.push.apns.update',
      ...signedIn,
      api,
      refused: integrationsRefused(deps, 'apns', ['key'], apnsField),
    },
    schema: { params: Org, body: ApnsForm },
    handler: async (req, reply) =>
      orFormError(
        deps,
        req,
        reply,
        'apns',
        shownAgain(req.body, 'key'),
        async () => {
          const orgId = req.params.organizationID;
          const { key: typed, keyid, teamid, bundleid, environment } = req.body;
          // Write-only: an empty field means "keep the stored key" (the API's PUT without `key`).
          const apns = {
            keyid,
            teamid,
            bundleid,
            ...(environment ? { environment } : {}),
            ...(typed ? { key: typed } : {}),
          };
          await deps.notifications.updateTransports(principalOf(session(req)), orgId, { apns });
          return back(reply, orgId, 'apns');
        },
        apnsField,
      ),
  });

  for (const which of ['fcm', 'apns'] as const)
    app.post(`/console/:organizationID/integrations/push/${which}/delete`, {
      config: { operation: `web.console.push.${which}.delete`, ...signedIn, api },
      // The confirmation step: the box must be ticked, else a 400 page and nothing changes.
      schema: { params: Org, body: Confirmed },
      handler: async (req, reply) => {
        await deps.notifications.updateTransports(principalOf(session(req)), req.params.organizationID, {
          [which]: null,
        });
        return back(reply, req.params.organizationID, `${which}-deleted`);
      },
    });
};
