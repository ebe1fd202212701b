/**
 * Routes of an organisation's data retention, under `{base}`: `POST
 * /organizations/{organizationID}/data-retention/enable`, `.../disable`, `POST
 * /organizations/{organizationID}/data-retention` (`{"RetentionPeriod": <seconds>}`), `GET
 * /organizations/{organizationID}/data-retention`.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../platform/core/principal.js';
import { errors, OrgParams } from '../../platform/http/schemas.js';
import { PeriodBody, RetentionBody } from './schemas.js';
import type { RetentionService } from './service.js';

const tags = ['data retention'];
const security = [{ bearer: [] }];

/** @param opts.retention - the retention service. */
export const retentionRoutes: FastifyPluginAsyncTypebox<{ retention: RetentionService }> = async (
  app,
  { retention },
) => {
  const answer = { 200: RetentionBody, ...errors(400, 401, 403, 404) };

  app.get('/organizations/:organizationID/data-retention', {
    config: { operation: 'retention.read' },
    schema: { tags, security, summary: 'Get the data-retention setting', params: OrgParams, response: answer },
    handler: (req) => retention.get(req.params.organizationID),
  });

  app.post('/organizations/:organizationID/data-retention', {
    config: { operation: 'retention.update' },
    schema: {
      tags,
      security,
      summary: 'Set the retention period (seconds)',
      params: OrgParams,
      body: PeriodBody,
      response: answer,
    },
    handler: (req) =>
      retention.setPeriod(req.principal as Principal, req.params.organizationID, req.body.RetentionPeriod),
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
        params: OrgParams,
        response: answer,
      },
      handler: (req) => retention.setEnabled(req.principal as Principal, req.params.organizationID, enabled),
    });
  }
};
