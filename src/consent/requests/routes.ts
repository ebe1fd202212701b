/**
 * Routes of the special consent request (docs/api.md "Permissions and consents", the 202 operation) and its job, under `{base}`:
 * - `POST /organizations/{organizationID}/purposes/{purposeID}/attributes/consent`: 202 + Location
 * - `GET /organizations/{organizationID}/jobs/{jobID}`: the job's state and counts
 * The notifications they cause are sent by notifications/ (docs/notifications.md).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Principal } from '../../platform/core/principal.js';
import { absentBodyAsEmpty } from '../../platform/http/body-keys.js';
import { errors } from '../../platform/http/schemas.js';
import { ConsentRequestInput, JobBody, JobParams, PurposeParams } from './schemas.js';
import type { ConsentRequestService } from './service.js';

const security = [{ bearer: [] }];

/** @param opts.requests - the consent request service; opts.publicUrl - for the absolute Location. */
export const consentRequestRoutes: FastifyPluginAsyncTypebox<{
  requests: ConsentRequestService;
  publicUrl: string;
}> = async (app, { requests, publicUrl }) => {
  app.post('/organizations/:organizationID/purposes/:purposeID/attributes/consent', {
    config: { operation: 'consent.request.create' },
    schema: {
      tags: ['consents'],
      security,
      summary: 'Special consent request: notify every subscribed individual who disallows any of the attributes',
      description:
        'Answers 202 with a Location header naming the job; the notifications are sent in the background, ' +
        'once per individual. Without any transport the job counts everyone as skipped, with the reason.',
      params: PurposeParams,
      body: ConsentRequestInput,
      response: { 202: Type.Null(), ...errors(400, 401, 403, 404) },
    },
    // docs/api.md "Permissions and consents": the body is optional; a request without one asks about every attribute.
    preValidation: absentBodyAsEmpty,
    handler: async (req, reply) => {
      const { organizationID, purposeID } = req.params;
      const jobId = await requests.start(req.principal as Principal, organizationID, purposeID, req.body.attributeids);
      return reply
        .code(202)
        .header('location', `${publicUrl}/v1/organizations/${organizationID}/jobs/${jobId}`)
        .send(null);
    },
  });

  app.get('/organizations/:organizationID/jobs/:jobID', {
    config: { operation: 'jobs.read' },
    schema: {
      tags: ['jobs'],
      security,
      summary: 'A background job: state, counts and times',
      params: JobParams,
      response: { 200: JobBody, ...errors(401, 403, 404) },
    },
    handler: async (req) => requests.job(req.params.organizationID, req.params.jobID),
  });
};
