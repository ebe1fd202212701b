/**
 * Routes of an individual's consent record (docs/api.md "Permissions and consents"), under `{base}`:
 * - `GET /organizations/{organizationID}/users/{userID}/consents`
 * - `GET .../consents/{consentID}`
 * - `GET|PATCH .../consents/{consentID}/purposes/{purposeID}`
 * - `GET|POST .../consents/{consentID}/purposes/{purposeID}/status`
 * - `PATCH .../consents/{consentID}/purposes/{purposeID}/attributes/{attributeID}`
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Principal } from '../../platform/core/principal.js';
import { errors } from '../../platform/http/schemas.js';
import { attributeChoice, parseConsentValue } from '../model/values.js';
import {
  AttributeParams,
  AttributeUpdateBody,
  AttributeUpdatedBody,
  ConsentRecordBody,
  PurposeConsentsBody,
  PurposeParams,
  PurposeStatusBody,
  PurposeStatusUpdateBody,
  PurposeUpdateBody,
  RecordParams,
  UpdateResultBody,
  UserParams,
} from './schemas.js';
import type { ConsentService, RequestMeta } from './service.js';

const tags = ['consents'];
const security = [{ bearer: [] }];
const reads = errors(401, 403, 404);
const writes = errors(400, 401, 403, 404);

/**
 * The evidence fields of a request: the endpoint template, the User-Agent and the request ID.
 * @param req - the request.
 */
export function requestMeta(req: FastifyRequest): RequestMeta {
  const ua = req.headers['user-agent'];
  return {
    endpoint: `${req.method} ${req.routeOptions.url}`,
    userAgent: (typeof ua === 'string' ? ua : '').slice(0, 512),
    requestId: String(req.id),
  };
}

/** @param opts.consents - the consent service. */
export const consentRoutes: FastifyPluginAsyncTypebox<{ consents: ConsentService }> = async (app, { consents }) => {
  const path = (p: { organizationID: string; userID: string; consentID?: string }) => ({
    orgId: p.organizationID,
    userId: p.userID,
    consentId: p.consentID,
  });
  const principal = (req: FastifyRequest) => req.principal as Principal;

  app.get('/organizations/:organizationID/users/:userID/consents', {
    config: { operation: 'consents.list' },
    schema: {
      tags,
      security,
      summary: 'Get consents for a user (with DataRetention per purpose)',
      params: UserParams,
      response: { 200: ConsentRecordBody, ...reads },
    },
    handler: async (req) => {
      return consents.recordBody(await consents.read(principal(req), path(req.params)), true);
    },
  });

  app.get('/organizations/:organizationID/users/:userID/consents/:consentID', {
    config: { operation: 'consents.read' },
    schema: {
      tags,
      security,
      summary: 'Get user consent by ID (no DataRetention)',
      params: RecordParams,
      response: { 200: ConsentRecordBody, ...reads },
    },
    handler: async (req) => {
      return consents.recordBody(await consents.read(principal(req), path(req.params)), false);
    },
  });

  app.get('/organizations/:organizationID/users/:userID/consents/:consentID/purposes/:purposeID', {
    config: { operation: 'consents.purpose.read' },
    schema: {
      tags,
      security,
      summary: 'Get all consents of a purpose',
      params: PurposeParams,
      response: { 200: PurposeConsentsBody, ...reads },
    },
    handler: async (req) => {
      return consents.purposeBody(await consents.read(principal(req), path(req.params), req.params.purposeID));
    },
  });

  app.patch('/organizations/:organizationID/users/:userID/consents/:consentID/purposes/:purposeID', {
    config: { operation: 'consents.purpose.update' },
    schema: {
      tags,
      security,
      summary: 'Update consents for attributes of a purpose',
      params: PurposeParams,
      body: PurposeUpdateBody,
      response: { 200: UpdateResultBody, ...writes },
    },
    handler: async (req) => {
      const value = parseConsentValue(req.body.consented);
      const ids = [...new Set(req.body.consentattributes.map((a) => a.attributeid))];
      const after = await consents.change(
        principal(req),
        path(req.params),
        req.params.purposeID,
        ids.map((attributeId) => ({ attributeId, value, days: 0 })),
        requestMeta(req),
      );
      return consents.updateResult(after, req.params.purposeID);
    },
  });

  app.get('/organizations/:organizationID/users/:userID/consents/:consentID/purposes/:purposeID/status', {
    config: { operation: 'consents.purpose.status.read' },
    schema: {
      tags,
      security,
      summary: 'Get consent status of a purpose',
      params: PurposeParams,
      response: { 200: PurposeStatusBody, ...reads },
    },
    handler: async (req) => {
      return consents.status(await consents.read(principal(req), path(req.params), req.params.purposeID));
    },
  });

  app.post('/organizations/:organizationID/users/:userID/consents/:consentID/purposes/:purposeID/status', {
    config: { operation: 'consents.purpose.status.update' },
    schema: {
      tags,
      security,
      summary: 'Set every attribute of a purpose (Days 0)',
      params: PurposeParams,
      body: PurposeStatusUpdateBody,
      response: { 200: ConsentRecordBody, ...writes },
    },
    handler: async (req) => {
      const value = parseConsentValue(req.body.consented);
      const after = await consents.change(
        principal(req),
        path(req.params),
        req.params.purposeID,
        { all: value },
        requestMeta(req),
        true,
      );
      return consents.recordBody(after, true);
    },
  });

  app.patch(
    '/organizations/:organizationID/users/:userID/consents/:consentID/purposes/:purposeID/attributes/:attributeID',
    {
      config: { operation: 'consents.attribute.update' },
      schema: {
        tags,
        security,
        summary: 'Update a single attribute consent',
        params: AttributeParams,
        body: AttributeUpdateBody,
        response: { 200: AttributeUpdatedBody, ...writes },
      },
      handler: async (req) => {
        const { value, days } = attributeChoice(req.body.consented, req.body.days);
        await consents.change(
          principal(req),
          path(req.params),
          req.params.purposeID,
          [{ attributeId: req.params.attributeID, value, days }],
          requestMeta(req),
        );
        // Exactly this body: the web dashboard counts the update as done only when Status === 200 (docs/api.md).
        return { Msg: 'Consent updated successfully', Status: 200 };
      },
    },
  );
};
