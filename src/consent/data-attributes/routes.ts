/**
 * Routes of data attributes (called templates in the API's paths and fields), under `{base}`:
 * `POST|GET /organizations/{organizationID}/templates`, `PUT|DELETE
 * /organizations/{organizationID}/templates/{templateID}`.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Principal } from '../../platform/core/principal.js';
import { errors, OrgParams } from '../../platform/http/schemas.js';
import { CreateBody, DataAttributeBody, DataAttributeInput, DataAttributeParams } from './schemas.js';
import type { DataAttributeService } from './service.js';

const tags = ['templates'];
const security = [{ bearer: [] }];

/** @param opts.dataAttributes - the data attribute service. */
export const dataAttributeRoutes: FastifyPluginAsyncTypebox<{ dataAttributes: DataAttributeService }> = async (
  app,
  { dataAttributes },
) => {
  app.post('/organizations/:organizationID/templates', {
    config: { operation: 'templates.create' },
    schema: {
      tags,
      security,
      summary: 'Add data attributes (templates) and link them to purposes',
      params: OrgParams,
      body: CreateBody,
      response: { 201: Type.Object({ Templates: Type.Array(DataAttributeBody) }), ...errors(400, 401, 403, 404) },
    },
    handler: async (req, reply) =>
      reply.code(201).send({
        Templates: await dataAttributes.create(
          req.principal as Principal,
          req.params.organizationID,
          req.body.templates,
        ),
      }),
  });

  app.get('/organizations/:organizationID/templates', {
    config: { operation: 'templates.list' },
    schema: {
      tags,
      security,
      summary: 'List the organisation’s data attributes',
      params: OrgParams,
      response: { 200: Type.Object({ Templates: Type.Array(DataAttributeBody) }), ...errors(401, 403, 404) },
    },
    handler: async (req) => ({ Templates: await dataAttributes.list(req.params.organizationID) }),
  });

  app.put('/organizations/:organizationID/templates/:templateID', {
    config: { operation: 'templates.update' },
    schema: {
      tags,
      security,
      summary: 'Rename a data attribute and replace its purposes',
      params: DataAttributeParams,
      body: DataAttributeInput,
      response: { 200: Type.Object({ Template: DataAttributeBody }), ...errors(400, 401, 403, 404) },
    },
    handler: async (req) => ({
      Template: await dataAttributes.update(
        req.principal as Principal,
        req.params.organizationID,
        req.params.templateID,
        req.body,
      ),
    }),
  });

  app.delete('/organizations/:organizationID/templates/:templateID', {
    config: { operation: 'templates.delete' },
    schema: {
      tags,
      security,
      summary: 'Delete a data attribute (consent evidence keeps it)',
      params: DataAttributeParams,
      response: { 204: Type.Null(), ...errors(401, 403, 404) },
    },
    handler: async (req, reply) => {
      await dataAttributes.delete(req.principal as Principal, req.params.organizationID, req.params.templateID);
      return reply.code(204).send(null);
    },
  });
};
