/**
 * Routes of the console's Consent requests pages (docs/web.md "Console"), at `{PUBLIC_URL}/console`:
 * - `GET /console/{organizationID}/requests`: one start form per purpose (`jobs.read`)
 * - `POST /console/{organizationID}/requests`: starts a special consent request (docs/api.md "Permissions and consents", the API's
 *   `consent.request.create`), then 303 to its job's page
 * - `GET /console/{organizationID}/requests/{jobID}`: the job's page (`jobs.read`)
 * - `GET /console/{organizationID}/requests/{jobID}/progress`: its progress fragment, polled by htmx
 * They call the API's services, with the API's body limits (`ConsentRequestInput`).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ConsentRequestService, DataAttributeService, PurposeService } from '../../consent/index.js';
import { AssentError } from '../../platform/core/errors.js';
import { httpStatusOf } from '../../platform/http/errors.js';
import { principalOf } from '../dashboard/views.js';
import { type FormRefusal, refusedForm } from '../shared/form-state.js';
import { seeOther, sendPage } from '../shared/html.js';
import { JobPage, JobProgress, RequestsPage } from './requests.js';
import { session, signedIn } from './routes.js';
import { Org, OrgJob, RequestForm } from './schemas.js';

/** What the console's Consent requests pages call: the services of the API's routes. */
export interface ConsoleRequestsDeps {
  consentRequests: ConsentRequestService;
  purposes: PurposeService;
  dataAttributes: DataAttributeService;
}

/** @param deps - the services. */
export const consoleRequestsRoutes: FastifyPluginAsyncTypebox<ConsoleRequestsDeps> = async (app, deps) => {
  const frame = async (orgId: string) =>
    Promise.all([deps.purposes.organisation(orgId), deps.dataAttributes.list(orgId)]);

  app.get('/console/:organizationID/requests', {
    config: { operation: 'web.console.requests', ...signedIn, api: 'jobs.read' },
    schema: { params: Org },
    handler: async (req, reply) => {
      const [org, attributes] = await frame(req.params.organizationID);
      return sendPage(reply, RequestsPage({ org, attributes, roles: req.webRoles, csrfToken: session(req).csrfToken }));
    },
  });

  app.post('/console/:organizationID/requests', {
    config: {
      operation: 'web.console.requests.create',
      ...signedIn,
      api: 'consent.request.create',
      // The start page again, the purpose's form as sent and the error by its attributes.
      refused: (async (req, reply, error) => {
        const refused = refusedForm(error, req.body, [], () => 'attributeids');
        if (!refused) return null;
        const [org, attributes] = await frame((req.params as { organizationID: string }).organizationID);
        const page = RequestsPage({ org, attributes, roles: req.webRoles, csrfToken: session(req).csrfToken, refused });
        return sendPage(reply, page, error instanceof AssentError ? httpStatusOf(error) : 400);
      }) satisfies FormRefusal,
    },
    schema: { params: Org, body: RequestForm },
    handler: async (req, reply) => {
      const orgId = req.params.organizationID;
      const { purposeid, attributeids } = req.body;
      // No attribute ticked is the API's absent `attributeids`: every attribute of the purpose (docs/api.md "Permissions and consents").
      const wanted = attributeids && attributeids.length > 0 ? attributeids : undefined;
      const jobId = await deps.consentRequests.start(principalOf(session(req)), orgId, purposeid, wanted);
      return seeOther(reply, `/console/${orgId}/requests/${jobId}`, false);
    },
  });

  app.get('/console/:organizationID/requests/:jobID', {
    config: { operation: 'web.console.requests.job', ...signedIn, api: 'jobs.read' },
    schema: { params: OrgJob },
    handler: async (req, reply) => {
      const { organizationID: orgId, jobID } = req.params;
      const job = await deps.consentRequests.job(orgId, jobID);
      const [org, attributes] = await frame(orgId);
      const page = JobPage({ org, attributes, job, roles: req.webRoles, csrfToken: session(req).csrfToken });
      return sendPage(reply, page);
    },
  });

  app.get('/console/:organizationID/requests/:jobID/progress', {
    config: { operation: 'web.console.requests.progress', ...signedIn, api: 'jobs.read' },
    schema: { params: OrgJob },
    handler: async (req, reply) => {
      const job = await deps.consentRequests.job(req.params.organizationID, req.params.jobID);
      return sendPage(reply, JobProgress({ orgId: req.params.organizationID, job }), 200, true);
    },
  });
};
