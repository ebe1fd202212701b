/**
 * Routes of the external OpenID provider section of the console's Integrations page (docs/web.md
 * "Console"; docs/federation.md "Configuration"), each following its API operation's policy row
 * (`api`) and calling `FederationConfigService` as `{base}/organizations/{orgID}/idp/open-id` does:
 * - `POST …/integrations/idp/create` (`federation.idp.create`), `POST …/integrations/idp/update`
 *   (`federation.idp.update`): with `discover` ticked, the endpoints are first read from the issuer's
 *   discovery document (through the SSRF guard); an empty client secret on update keeps the stored one;
 * - `POST …/integrations/idp/delete` (`federation.idp.delete`), only with the confirmation box ticked.
 * A change the service refuses (4xx) answers the page with that status and the message beside the form.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { IdpInput } from '../../federation/index.js';
import { principalOf } from '../dashboard/views.js';
import { fieldNamedIn } from '../shared/form-state.js';
import { back, type IntegrationsDeps, integrationsRefused, orFormError, shownAgain } from './integrations-data.js';
import { session, signedIn } from './routes.js';
import { Confirmed, IdpForm, Org } from './schemas.js';

/**
 * The API body of a form: every field sent (unticked boxes false), the client secret only when typed.
 * With `discover`, the discovery document's endpoints replace the typed ones.
 * @throws {InvalidRequest} from discovery (unreachable, refused address, another issuer); nothing is stored.
 */
async function inputOf(deps: IntegrationsDeps, f: IdpForm): Promise<IdpInput> {
  const input: IdpInput = {
    issuer: f.issuer ?? '',
    authorizationUrl: f.authorizationurl ?? '',
    tokenUrl: f.tokenurl ?? '',
    jwksUrl: f.jwksurl ?? '',
    userInfoUrl: f.userinfourl ?? '',
    logoutUrl: f.logouturl ?? '',
    clientId: f.clientid ?? '',
    defaultScope: f.defaultscope ?? '',
    validateSignature: f.validatesignature === 'on',
    disableUserInfo: f.disableuserinfo === 'on',
  };
  // Write-only: an empty field means "keep the stored secret" (the API's PUT without clientSecret).
  if (f.clientsecret) input.clientSecret = f.clientsecret;
  if (f.discover === 'on') Object.assign(input, await deps.federationConfigs.discover(input.issuer ?? ''));
  return input;
}

/** The IdP form's fields, as the configuration's messages name them (`clientId`, `defaultScope`, …; case aside). */
const IDP_FIELDS = [
  'issuer',
  'authorizationurl',
  'tokenurl',
  'jwksurl',
  'userinfourl',
  'logouturl',
  'clientid',
  'clientsecret',
  'defaultscope',
];
/** The field an IdP refusal names first (discovery failures name the issuer). */
const idpField = (message: string) =>
  fieldNamedIn(message, IDP_FIELDS) ?? (/discovery/i.test(message) ? 'issuer' : undefined);

/** @param opts - the services. */
export const consoleIdpRoutes: FastifyPluginAsyncTypebox<IntegrationsDeps> = async (app, deps) => {
  // Create (the API's POST …/idp/open-id) and update (its PUT): the same form, the service's two rules.
  for (const [step, done] of [
    ['create', 'idp-created'],
    ['update', 'idp-updated'],
  ] as const)
    app.post(`/console/:organizationID/integrations/idp/${step}`, {
      config: {
        operation: `web.console.idp.${step}`,
        ...signedIn,
        api: `federation.idp.${step}`,
        refused: integrationsRefused(deps, 'idp', ['clientsecret'], idpField),
      },
      schema: { params: Org, body: IdpForm },
      handler: async (req, reply) =>
        orFormError(
          deps,
          req,
          reply,
          'idp',
          shownAgain(req.body, 'clientsecret'),
          async () => {
            const orgId = req.params.organizationID;
            const input = await inputOf(deps, req.body);
            await deps.federationConfigs[step](principalOf(session(req)), orgId, input);
            return back(reply, orgId, done);
          },
          idpField,
        ),
    });

  app.post('/console/:organizationID/integrations/idp/delete', {
    config: { operation: 'web.console.idp.delete', ...signedIn, api: 'federation.idp.delete' },
    // The confirmation step: the box must be ticked, else a 400 page and nothing changes.
    schema: { params: Org, body: Confirmed },
    handler: async (req, reply) => {
      await deps.federationConfigs.remove(principalOf(session(req)), req.params.organizationID);
      return back(reply, req.params.organizationID, 'idp-deleted');
    },
  });
};
