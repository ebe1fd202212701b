/**
 * Routes of the signed-in user's account as a whole, under `{base}`:
 * - `GET /user/export`: the data export (GDPR Art. 15 and 20; docs/identity.md "Data export (GDPR Art. 15 and 20)");
 * - `POST /users/unregister`: account deletion (docs/decisions/0012-account-deletion.md; GDPR Art. 17).
 */
import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Principal } from '../platform/core/principal.js';
import { errors } from '../platform/http/schemas.js';
import { type AccountExport, ExportDocument, exportJson } from './export.js';
import type { AccountService } from './service.js';

/**
 * Sends the export as a JSON attachment, streamed (also the dashboard's download, src/web). The response schema documents the document; a stream is sent as
 * it is, so each part is built field by field (`export.ts`) rather than filtered by the schema.
 */
export function sendExport(reply: FastifyReply, doc: AccountExport): FastifyReply {
  // Personal data: no browser or proxy cache may keep a copy for the next user of the machine.
  reply.header('Cache-Control', 'no-store');
  reply.header('Content-Type', 'application/json; charset=utf-8');
  reply.header('Content-Disposition', `attachment; filename="assent-export-${doc.ExportedAt.slice(0, 10)}.json"`);
  return reply.send(Readable.from(exportJson(doc), { objectMode: false }));
}

/** @param opts.accounts - the account service. */
export const accountRoutes: FastifyPluginAsyncTypebox<{ accounts: AccountService }> = async (app, { accounts }) => {
  // No user ID in the path or query: the export is always the caller's own (threat: IDOR).
  app.get('/user/export', {
    config: { operation: 'user.export' },
    schema: {
      tags: ['users'],
      security: [{ bearer: [] }],
      summary: 'Everything Assent keeps about the signed-in user, as one JSON file (GDPR Art. 15 and 20)',
      description:
        'Profile, subscriptions, admin roles, consent records, links to external and wallet identities, sessions and ' +
        'API keys (metadata only), and the whole consent history, oldest first; never a password hash, token, API key ' +
        'or other secret. Answered as an attachment `assent-export-<date>.json`, streamed: the history is read in ' +
        'chunks while it is sent.',
      response: { 200: ExportDocument, ...errors(401, 404) },
    },
    handler: async (req, reply) => sendExport(reply, await accounts.exportData((req.principal as Principal).userId)),
  });

  app.post('/users/unregister', {
    config: { operation: 'users.unregister' },
    schema: {
      tags: ['users'],
      security: [{ bearer: [] }],
      summary:
        'Delete the signed-in user’s account: personal data, image, password, sessions and API keys; the consent ' +
        'history is kept under a pseudonym',
      response: { 204: Type.Null(), ...errors(401, 404) },
    },
    handler: async (req, reply) => {
      await accounts.delete((req.principal as Principal).userId);
      return reply.code(204).send(null);
    },
  });
};
