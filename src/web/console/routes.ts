/**
 * Routes of the console's home and organisation page (docs/web.md "Console"), at `{PUBLIC_URL}/console`:
 * - `GET /console` (the organisations where the user holds a role); `GET /console/{organizationID}`
 * - `GET /console/{organizationID}/organisation`; `POST …/retention`;
 *   `POST …/purposes`, `POST …/purposes/{purposeID}`, `POST …/purposes/{purposeID}/delete`;
 *   `POST …/attributes`, `POST …/attributes/{templateID}`, `POST …/attributes/{templateID}/delete`
 *   (a deletion only with its confirmation box ticked, and recorded in the organisation audit log)
 * Each page names the API operation whose access-policy row decides who may use it (`api`).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DataAttributeService, PurposeService, RetentionService } from '../../consent/index.js';
import type { IdentityService, WebSession } from '../../identity/index.js';
import { AssentError, InvalidRequest } from '../../platform/core/errors.js';
import { httpStatusOf } from '../../platform/http/errors.js';
import { principalOf } from '../dashboard/views.js';
import { type FormRefusal, refusedForm } from '../shared/form-state.js';
import { seeOther, sendPage } from '../shared/html.js';
import { ConsoleHome } from './home.js';
import { OrganisationPage } from './organisation.js';
import {
  AttributeForm,
  Confirmed,
  DoneQuery,
  Org,
  OrgPurpose,
  OrgTemplate,
  PurposeForm,
  RetentionForm,
} from './schemas.js';

/** What the console's organisation pages call. */
export interface ConsoleDeps {
  identity: IdentityService;
  purposes: PurposeService;
  dataAttributes: DataAttributeService;
  retention: RetentionService;
}

/** The route config of a console page: signed in, else sent to the console's sign-in. */
export const signedIn = { web: 'signed-in', signIn: '/console/sign-in' } as const;
/** The signed-in browser's session (set by the web guard on `signedIn` pages). */
export const session = (req: FastifyRequest) => req.webSession as WebSession;
const purposeInput = (b: { name: string; description?: string; policyurl?: string; lawfulusage?: 'on' }) => ({
  name: b.name,
  description: b.description,
  policyurl: b.policyurl,
  lawfulusage: b.lawfulusage === 'on',
});
const back = (reply: FastifyReply, orgId: string, done: string) =>
  seeOther(reply, `/console/${orgId}/organisation?done=${done}`, false);
const DONE: Record<string, string> = {
  retention: 'Data retention saved.',
  purpose: 'Purpose saved.',
  'purpose-deleted': 'Purpose deleted.',
  attribute: 'Data attribute saved.',
  'attribute-deleted': 'Data attribute deleted.',
};

/** The data attribute service's refusals name a purpose: the form's purpose boxes. */
const purposeField = (message: string) => (/purpose/i.test(message) ? 'purposeids' : undefined);
/** The path parameters of the organisation page's forms. */
type OrgFormParams = { organizationID: string; purposeID?: string; templateID?: string };

/**
 * The organisation page again, with a refused form shown as sent and its error by its field.
 * @param form - which form, from the path (`p-new`, `p-{purposeID}`, …; `organisation-forms.tsx`).
 * @param fieldOf - the field a service's message is about.
 */
function orgRefused(
  deps: ConsoleDeps,
  form: (params: OrgFormParams) => string,
  fieldOf?: (message: string) => string | undefined,
): FormRefusal {
  return async (req, reply, error) => {
    const refused = refusedForm(error, req.body, [], fieldOf);
    if (!refused) return null;
    const params = req.params as OrgFormParams;
    const orgId = params.organizationID;
    const [org, attributes] = await Promise.all([deps.purposes.organisation(orgId), deps.dataAttributes.list(orgId)]);
    const csrfToken = session(req).csrfToken;
    const page = OrganisationPage({
      org,
      attributes,
      roles: req.webRoles,
      csrfToken,
      refused: { ...refused, form: form(params) },
    });
    return sendPage(reply, page, error instanceof AssentError ? httpStatusOf(error) : 400);
  };
}

/** @param opts - the services. */
export const consoleRoutes: FastifyPluginAsyncTypebox<ConsoleDeps> = async (app, deps) => {
  app.get('/console', { config: { operation: 'web.console.home', ...signedIn } }, async (req, reply) => {
    const user = await deps.identity.userRecord(session(req).userId, false);
    const byOrg = new Map<string, number[]>();
    for (const r of user.Roles ?? []) byOrg.set(r.OrgID, [...(byOrg.get(r.OrgID) ?? []), r.RoleID]);
    const orgs = await Promise.all(
      [...byOrg].map(async ([id, roles]) => ({ id, roles, name: (await deps.purposes.organisation(id)).Name })),
    );
    return sendPage(reply, ConsoleHome({ orgs, csrfToken: session(req).csrfToken }), orgs.length === 0 ? 403 : 200);
  });

  app.get('/console/:organizationID', {
    config: { operation: 'web.console.org', ...signedIn, api: 'purposes.list' },
    schema: { params: Org },
    handler: (req, reply) => reply.redirect(`/console/${req.params.organizationID}/organisation`, 303),
  });

  app.get('/console/:organizationID/organisation', {
    config: { operation: 'web.console.organisation', ...signedIn, api: 'purposes.list' },
    schema: { params: Org, querystring: DoneQuery },
    handler: async (req, reply) => {
      const orgId = req.params.organizationID;
      const [org, attributes] = await Promise.all([deps.purposes.organisation(orgId), deps.dataAttributes.list(orgId)]);
      const done = DONE[req.query.done ?? ''];
      const page = OrganisationPage({ org, attributes, roles: req.webRoles, csrfToken: session(req).csrfToken, done });
      return sendPage(reply, page);
    },
  });

  app.post('/console/:organizationID/retention', {
    config: {
      operation: 'web.console.retention.update',
      ...signedIn,
      api: 'retention.update',
      refused: orgRefused(
        deps,
        () => 'retention',
        () => 'days',
      ),
    },
    schema: {
      params: Org,
      body: RetentionForm,
    },
    handler: async (req, reply) => {
      const orgId = req.params.organizationID;
      const days = Number(req.body.days);
      // The API's bounds (consent/retention/routes.ts): at least one day here, at most 100 years.
      if (days < 1 || days > 36_500) throw new InvalidRequest('The retention period must be 1 to 36500 days');
      await deps.retention.set(principalOf(session(req)), orgId, {
        periodSeconds: days * 86_400,
        enabled: req.body.enabled === 'on',
      });
      return back(reply, orgId, 'retention');
    },
  });

  app.post('/console/:organizationID/purposes', {
    config: {
      operation: 'web.console.purposes.create',
      ...signedIn,
      api: 'purposes.create',
      refused: orgRefused(deps, () => 'p-new'),
    },
    schema: { params: Org, body: PurposeForm },
    handler: async (req, reply) => {
      await deps.purposes.create(principalOf(session(req)), req.params.organizationID, [purposeInput(req.body)]);
      return back(reply, req.params.organizationID, 'purpose');
    },
  });

  app.post('/console/:organizationID/purposes/:purposeID', {
    config: {
      operation: 'web.console.purposes.update',
      ...signedIn,
      api: 'purposes.update',
      refused: orgRefused(deps, (p) => `p-${p.purposeID}`),
    },
    schema: { params: OrgPurpose, body: PurposeForm },
    handler: async (req, reply) => {
      await deps.purposes.update(
        principalOf(session(req)),
        req.params.organizationID,
        req.params.purposeID,
        purposeInput(req.body),
      );
      return back(reply, req.params.organizationID, 'purpose');
    },
  });

  app.post('/console/:organizationID/purposes/:purposeID/delete', {
    config: {
      operation: 'web.console.purposes.delete',
      ...signedIn,
      api: 'purposes.delete',
      refused: orgRefused(deps, (p) => `p-${p.purposeID}-delete`),
    },
    // The confirmation step: the box must be ticked, else a 400 page and nothing changes.
    schema: { params: OrgPurpose, body: Confirmed },
    handler: async (req, reply) => {
      await deps.purposes.delete(principalOf(session(req)), req.params.organizationID, req.params.purposeID);
      return back(reply, req.params.organizationID, 'purpose-deleted');
    },
  });

  app.post('/console/:organizationID/attributes', {
    config: {
      operation: 'web.console.attributes.create',
      ...signedIn,
      api: 'templates.create',
      refused: orgRefused(deps, () => 't-new', purposeField),
    },
    schema: { params: Org, body: AttributeForm },
    handler: async (req, reply) => {
      const { consent, purposeids } = req.body;
      await deps.dataAttributes.create(principalOf(session(req)), req.params.organizationID, [{ consent, purposeids }]);
      return back(reply, req.params.organizationID, 'attribute');
    },
  });

  app.post('/console/:organizationID/attributes/:templateID', {
    config: {
      operation: 'web.console.attributes.update',
      ...signedIn,
      api: 'templates.update',
      refused: orgRefused(deps, (p) => `t-${p.templateID}`, purposeField),
    },
    schema: { params: OrgTemplate, body: AttributeForm },
    handler: async (req, reply) => {
      const { consent, purposeids } = req.body;
      await deps.dataAttributes.update(principalOf(session(req)), req.params.organizationID, req.params.templateID, {
        consent,
        purposeids: purposeids ?? [],
      });
      return back(reply, req.params.organizationID, 'attribute');
    },
  });

  app.post('/console/:organizationID/attributes/:templateID/delete', {
    config: {
      operation: 'web.console.attributes.delete',
      ...signedIn,
      api: 'templates.delete',
      refused: orgRefused(deps, (p) => `t-${p.templateID}-delete`),
    },
    // The confirmation step, as for a purpose.
    schema: { params: OrgTemplate, body: Confirmed },
    handler: async (req, reply) => {
      await deps.dataAttributes.delete(principalOf(session(req)), req.params.organizationID, req.params.templateID);
      return back(reply, req.params.organizationID, 'attribute-deleted');
    },
  });
};
