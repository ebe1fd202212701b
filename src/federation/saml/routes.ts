/**
 * Routes of SAML 2.0 federation with an organisation's IdP, under `{base}`, beside the OpenID
 * provider's `…/idp/open-id` (docs/federation.md "SAML 2.0"; docs/decisions/0022-saml-federation.md):
 * - `POST|PUT|GET|DELETE /organizations/{organizationID}/idp/saml`: the configuration
 * - `GET …/idp/saml/metadata`: Assent's SP metadata (its entity ID is this URL)
 * - `GET …/idp/saml/authorize`, `POST …/idp/saml/acs`: the browser's round trip; the code is
 *   redeemed at `POST …/idp/open-id/exchange`
 * - `POST …/idp/saml/logout`, `GET|POST …/idp/saml/logout/callback`: single logout (HTTP-Redirect and
 *   HTTP-POST bindings)
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Principal } from '../../platform/core/principal.js';
import { absentBodyAsEmpty } from '../../platform/http/body-keys.js';
import { errors } from '../../platform/http/schemas.js';
import { AuthorizeQuery, OrgParams, security, tags } from '../openid/schemas.js';
import type { SamlBroker } from './broker.js';
import { SamlBody, SamlInput } from './config.js';
import type { LogoutOutcome, SamlLogout } from './logout.js';
import { AcsBody, LoggedOutBody, LogoutPostBody, LogoutQuery, LogoutRedirectQuery } from './schemas.js';
import type { SamlConfigService } from './service.js';
import type { SamlMetadataService } from './sp-metadata.js';

/** The SAML services, built by `createContext` (`ctx.saml`): the options of the routes. */
export interface SamlServices {
  /** The IdP configuration. */
  configs: SamlConfigService;
  /** Assent's SP metadata. */
  metadata: SamlMetadataService;
  /** The authorize and ACS steps. */
  broker: SamlBroker;
  /** Single logout. */
  logout: SamlLogout;
}

/** @param opts - the services. */
export const samlRoutes: FastifyPluginAsyncTypebox<SamlServices> = async (
  app,
  { configs, metadata, broker, logout },
) => {
  const path = '/organizations/:organizationID/idp/saml';
  const configBody = { params: OrgParams, body: Type.Optional(SamlInput) };
  const who = (req: { principal?: unknown }) => req.principal as Principal;

  app.post(path, {
    config: { operation: 'federation.saml.create' },
    schema: {
      tags,
      security,
      summary: 'Add the SAML IdP (metadata XML or URL, or entity ID, SSO URL and certificates)',
      ...configBody,
      response: { 201: SamlBody, ...errors(400, 401, 403, 404, 409) },
    },
    preValidation: absentBodyAsEmpty,
    handler: async (req, reply) =>
      reply.code(201).send(await configs.create(who(req), req.params.organizationID, req.body ?? {}, req.log)),
  });
  app.put(path, {
    config: { operation: 'federation.saml.update' },
    schema: {
      tags,
      security,
      summary: 'Update the SAML IdP; absent fields keep their value, a metadata URL is fetched again',
      ...configBody,
      response: { 200: SamlBody, ...errors(400, 401, 403, 404) },
    },
    preValidation: absentBodyAsEmpty,
    handler: async (req) => configs.update(who(req), req.params.organizationID, req.body ?? {}, req.log),
  });
  app.get(path, {
    config: { operation: 'federation.saml.read' },
    schema: {
      tags,
      security,
      summary: 'Get the SAML IdP',
      params: OrgParams,
      response: { 200: SamlBody, ...errors(401, 403, 404) },
    },
    handler: async (req) => configs.read(req.params.organizationID),
  });
  app.delete(path, {
    config: { operation: 'federation.saml.delete' },
    schema: {
      tags,
      security,
      summary: 'Delete the SAML IdP',
      params: OrgParams,
      response: { 204: Type.Null(), ...errors(401, 403, 404) },
    },
    handler: async (req, reply) => {
      await configs.remove(who(req), req.params.organizationID);
      return reply.code(204).send(null);
    },
  });
  app.get(`${path}/metadata`, {
    config: { operation: 'federation.saml.metadata' },
    schema: {
      tags,
      summary: 'Assent’s SP metadata (SAML 2.0 Metadata): entity ID, ACS, SLO and signing certificates',
      params: OrgParams,
      produces: ['application/samlmetadata+xml'],
      response: { 200: Type.String(), ...errors(404) },
    },
    handler: async (req, reply) =>
      reply.type('application/samlmetadata+xml').send(await metadata.xml(req.params.organizationID)),
  });
  app.get(`${path}/authorize`, {
    config: { operation: 'federation.saml.authorize' },
    schema: {
      tags,
      summary: 'Start a sign-in at the SAML IdP: 302 with a signed AuthnRequest (HTTP-Redirect binding)',
      params: OrgParams,
      querystring: AuthorizeQuery,
      response: { 302: Type.Null(), ...errors(400, 404, 429) },
    },
    handler: async (req, reply) =>
      reply.redirect(
        await broker.authorize(req.params.organizationID, req.query.redirect_uri, req.query.state, req.ip),
        302,
      ),
  });
  app.post(`${path}/acs`, {
    config: { operation: 'federation.saml.acs' },
    bodyLimit: 512 * 1024,
    schema: {
      tags,
      summary:
        'AssertionConsumerService (HTTP-POST binding): 303 to the app URI with `code` and `state`, ' +
        'or with `error` and `error_description`',
      params: OrgParams,
      body: AcsBody,
      response: { 303: Type.Null(), ...errors(400) },
    },
    handler: async (req, reply) =>
      reply.redirect((await broker.acs(req.params.organizationID, req.body, req.log)).location, 303),
  });
  app.post(`${path}/logout`, {
    config: { operation: 'federation.saml.logout' },
    schema: {
      tags,
      security,
      summary:
        'Single logout: ends the Assent session at once; `Link: <…>; rel="end-session"` is the IdP’s ' +
        'logout URL with a signed LogoutRequest, for the browser',
      params: OrgParams,
      querystring: LogoutQuery,
      response: { 204: Type.Null(), ...errors(400, 401, 404) },
    },
    handler: async (req, reply) => {
      const url = await logout.end(who(req), req.params.organizationID, req.query.redirect_uri, req.log);
      if (url) reply.header('link', `<${url}>; rel="end-session"`);
      return reply.code(204).send(null);
    },
  });
  const sloSummary =
    'SingleLogoutService: the IdP’s signed LogoutResponse (303 to the app URI, or 200) or LogoutRequest ' +
    '(303 to the IdP with Assent’s signed LogoutResponse)';
  const sloResponse = { 200: LoggedOutBody, 303: Type.Null(), ...errors(400, 404) };
  const answer = (outcome: LogoutOutcome, reply: FastifyReply) =>
    'location' in outcome ? reply.redirect(outcome.location, 303) : reply.send({ LoggedOut: outcome.loggedOut });
  app.get(`${path}/logout/callback`, {
    config: { operation: 'federation.saml.logout-callback' },
    schema: {
      tags,
      summary: `${sloSummary}; HTTP-Redirect binding`,
      params: OrgParams,
      querystring: LogoutRedirectQuery,
      response: sloResponse,
    },
    handler: async (req, reply) => {
      // The signature covers the query's octets as sent: everything after the first "?".
      const url = req.raw.url ?? '';
      const rawQuery = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
      const outcome = await logout.receive(
        req.params.organizationID,
        { binding: 'HTTP-Redirect', fields: req.query, rawQuery },
        req.log,
      );
      return answer(outcome, reply);
    },
  });
  app.post(`${path}/logout/callback`, {
    config: { operation: 'federation.saml.logout-callback' },
    bodyLimit: 256 * 1024,
    schema: {
      tags,
      summary: `${sloSummary}; HTTP-POST binding (form)`,
      params: OrgParams,
      body: LogoutPostBody,
      response: sloResponse,
    },
    handler: async (req, reply) => {
      const outcome = await logout.receive(
        req.params.organizationID,
        { binding: 'HTTP-POST', fields: req.body },
        req.log,
      );
      return answer(outcome, reply);
    },
  });
};
