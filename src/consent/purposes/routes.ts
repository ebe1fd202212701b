/**
 * Routes of an organisation's purposes, under `{base}`: `POST|GET
 * /organizations/{organizationID}/purposes`, `GET|PUT|DELETE
 * /organizations/{organizationID}/purposes/{purposeID}`.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Principal } from '../../platform/core/principal.js';
import { errors, OrgParams } from '../../platform/http/schemas.js';
import { OrganisationBody, PurposeBody } from './present.js';
import { CreateBody, PurposeInput, PurposeParams } from './schemas.js';
import type { PurposeService } from './service.js';

const tags = ['purposes'];
const security = [{ bearer: [] }];

/** @param opts.purposes - the purpose service. */
export const purposeRoutes: FastifyPluginAsyncTypebox<{ purposes: PurposeService }> = async (app, { purposes }) => {
  app.post('/organizations/:organizationID/purposes', {
    config: { operation: 'purposes.create' },
    schema: {
      tags,
      security,
      summary: 'Add purposes to the organisation',
      params: OrgParams,
      body: CreateBody,
      response: { 201: Type.Object({ Organization: OrganisationBody }), ...errors(400, 401, 403, 404) },
    },
    handler: async (req, reply) =>
      reply.code(201).send({
        Organization: await purposes.create(req.principal as Principal, req.params.organizationID, req.body.purposes),
      }),
  });

  app.get('/organizations/:organizationID/purposes', {
    config: { operation: 'purposes.list' },
    schema: {
      tags,
      security,
      summary: 'List the organisation’s purposes',
      params: OrgParams,
      response: { 200: Type.Object({ Purposes: Type.Array(PurposeBody) }), ...errors(401, 403, 404) },
    },
    handler: async (req) => ({ Purposes: await purposes.list(req.params.organizationID) }),
  });

  app.get('/organizations/:organizationID/purposes/:purposeID', {
    config: { operation: 'purposes.read' },
    schema: {
      tags,
      security,
      summary: 'Get a purpose',
      params: PurposeParams,
      response: { 200: Type.Object({ Purpose: PurposeBody }), ...errors(401, 403, 404) },
    },
    handler: async (req) => ({ Purpose: await purposes.get(req.params.organizationID, req.params.purposeID) }),
  });

  app.put('/organizations/:organizationID/purposes/:purposeID', {
    config: { operation: 'purposes.update' },
    schema: {
      tags,
      security,
      summary: 'Replace a purpose’s name, description, lawful usage and policy URL',
      params: PurposeParams,
      body: PurposeInput,
      response: { 200: Type.Object({ Purpose: PurposeBody }), ...errors(400, 401, 403, 404) },
    },
    handler: async (req) => ({
      Purpose: await purposes.update(
        req.principal as Principal,
        req.params.organizationID,
        req.params.purposeID,
        req.body,
      ),
    }),
  });

  app.delete('/organizations/:organizationID/purposes/:purposeID', {
    config: { operation: 'purposes.delete' },
    schema: {
      tags,
      security,
      summary: 'Delete a purpose (consent evidence keeps it)',
      params: PurposeParams,
      response: { 204: Type.Null(), ...errors(401, 403, 404) },
    },
    handler: async (req, reply) => {
      await purposes.delete(req.principal as Principal, req.params.organizationID, req.params.purposeID);
      return reply.code(204).send(null);
    },
  });
};
