/**
 * Routes of data attributes ("templates"), under `{base}`:
 * `POST|GET /organizations/{organizationID}/templates`,
 * `PUT|DELETE /organizations/{organizationID}/templates/{templateID}`.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors } from '../http/schemas.js';
import type { TemplateService } from './service.js';

const TemplateBody = Type.Object({
  ID: Type.String(),
  Consent: Type.String({ description: 'the data attribute’s name' }),
  PurposeIDs: Type.Array(Type.String()),
});
const TemplateInput = Type.Object({
  consent: Type.String({ minLength: 1, maxLength: 200, description: 'the data attribute’s name' }),
  purposeids: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 100 })),
});
const OrgParams = Type.Object({ organizationID: Type.String() });
const TemplateParams = Type.Object({ organizationID: Type.String(), templateID: Type.String() });
const tags = ['templates'];
const security = [{ bearer: [] }];

/** @param opts.templates - the template service. */
export const templateRoutes: FastifyPluginAsyncTypebox<{ templates: TemplateService }> = async (app, { templates }) => {
  app.post('/organizations/:organizationID/templates', {
    config: { operation: 'templates.create' },
    schema: {
      tags, security, summary: 'Add data attributes (templates) and link them to purposes', params: OrgParams,
      body: Type.Object({ templates: Type.Array(TemplateInput, { minItems: 1, maxItems: 100 }) }),
      response: { 201: Type.Object({ Templates: Type.Array(TemplateBody) }), ...errors(400, 401, 403, 404) },
    },
    handler: async (req, reply) => reply.code(201).send({ Templates: await templates.create(req.params.organizationID, req.body.templates) }),
  });

  app.get('/organizations/:organizationID/templates', {
    config: { operation: 'templates.list' },
    schema: { tags, security, summary: 'List the organisation’s data attributes', params: OrgParams, response: { 200: Type.Object({ Templates: Type.Array(TemplateBody) }), ...errors(401, 403, 404) } },
    handler: async (req) => ({ Templates: await templates.list(req.params.organizationID) }),
  });

  app.put('/organizations/:organizationID/templates/:templateID', {
    config: { operation: 'templates.update' },
    schema: { tags, security, summary: 'Rename a data attribute and replace its purposes', params: TemplateParams, body: TemplateInput, response: { 200: Type.Object({ Template: TemplateBody }), ...errors(400, 401, 403, 404) } },
    handler: async (req) => ({ Template: await templates.update(req.params.organizationID, req.params.templateID, req.body) }),
  });

  app.delete('/organizations/:organizationID/templates/:templateID', {
    config: { operation: 'templates.delete' },
    schema: { tags, security, summary: 'Delete a data attribute (consent evidence keeps it)', params: TemplateParams, response: { 204: Type.Null(), ...errors(401, 403, 404) } },
    handler: async (req, reply) => {
      await templates.delete(req.params.organizationID, req.params.templateID);
      return reply.code(204).send(null);
    },
  });
};
