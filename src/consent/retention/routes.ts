/**
 * Routes of an organisation's data retention, under `{base}`: `POST
 * /organizations/{organizationID}/data-retention/enable`, `.../disable`, `POST
 * /organizations/{organizationID}/data-retention` (`{"RetentionPeriod": <seconds>}`), `GET
 * /organizations/{organizationID}/data-retention`.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors } from '../../platform/http/schemas.js';
import type { RetentionService } from './service.js';

const Params = Type.Object({ organizationID: Type.String() });
const RetentionBody = Type.Object({
  DataRetention: Type.Object({ Enabled: Type.Boolean(), RetentionPeriod: Type.Integer({ description: 'seconds' }) }),
});
const tags = ['data retention'];
const security = [{ bearer: [] }];
/** Longest accepted period: 100 years (seconds). */
const MAX_PERIOD = 100 * 365 * 86400;

/** @param opts.retention - the retention service. */
export const retentionRoutes: FastifyPluginAsyncTypebox<{ retention: RetentionService }> = async (
  app,
  { retention },
) => {
  const answer = { 200: RetentionBody, ...errors(400, 401, 403, 404) };

  app.get('/organizations/:organizationID/data-retention', {
    config: { operation: 'retention.read' },
    schema: { tags, security, summary: 'Get the data-retention setting', params: Params, response: answer },
    handler: (req) => retention.get(req.params.organizationID),
  });

  app.post('/organizations/:organizationID/data-retention', {
    config: { operation: 'retention.update' },
    schema: {
      tags,
      security,
      summary: 'Set the retention period (seconds)',
      params: Params,
      body: Type.Object({ RetentionPeriod: Type.Integer({ minimum: 1, maximum: MAX_PERIOD, description: 'seconds' }) }),
      response: answer,
    },
    handler: (req) => retention.setPeriod(req.params.organizationID, req.body.RetentionPeriod),
  });

  for (const [url, enabled] of [
    ['/organizations/:organizationID/data-retention/enable', true],
    ['/organizations/:organizationID/data-retention/disable', false],
  ] as const) {
    app.post(url, {
      config: { operation: 'retention.update' },
      schema: {
        tags,
        security,
        summary: `${enabled ? 'Enable' : 'Disable'} data retention`,
        params: Params,
        response: answer,
      },
      handler: (req) => retention.setEnabled(req.params.organizationID, enabled),
    });
  }
};
