/**
 * Routes of profile images, under `{base}` (docs/api.md "User management"; docs/decisions/0010-profile-images.md "Profile images"):
 * - `POST /users/{userID}/image` and its alias `POST /user/image` (docs/api.md "Path aliases"):
 *   multipart field `userimage`; answers 200 `{"User": {...}}`
 * - `GET /users/{userID}/image/{imageID}`: the JPEG, with a strong ETag and 304 on `If-None-Match`
 * - `DELETE /users/{userID}/image`: 204
 *
 * `@fastify/multipart` is registered inside this plugin only, so no other route accepts a form.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { errors } from '../../platform/http/schemas.js';
import { UserResponse } from '../users/schemas.js';
import { IMAGE_FIELD, readImageField, UPLOAD_LIMITS } from './form.js';
import { ImageParams, UserParams } from './schemas.js';
import type { ImageDownload, ImageService } from './service.js';

const tags = ['users'];
const security = [{ bearer: [] }];
const UPLOAD_DESCRIPTION =
  `multipart/form-data with one file in the field \`${IMAGE_FIELD}\`: JPEG, PNG or WebP (detected from the bytes), ` +
  'at most 5 MiB and 4096×4096 pixels. Stored re-encoded as JPEG without any metadata (EXIF, GPS, ICC); ' +
  'the previous image is deleted. ' +
  'Only the user themself: 403 for staff who may view the image, 404 for anyone else.';
const UPLOAD_SCHEMA = {
  tags,
  security,
  description: UPLOAD_DESCRIPTION,
  consumes: ['multipart/form-data'],
  response: { 200: UserResponse, ...errors(400, 401, 403, 404, 413, 415) },
};

/** Sends a download: headers common to 200 and 304, then the bytes or nothing (also the dashboard's, src/web/). */
export function sendImage(reply: FastifyReply, image: ImageDownload): FastifyReply {
  reply.header('ETag', `"${image.etag}"`);
  // Per-user content: never in a shared cache, and every reuse is revalidated (so access and deletion take effect).
  reply.header('Cache-Control', 'private, no-cache');
  // Threat: content sniffing of stored bytes; they are always JPEG.
  reply.header('X-Content-Type-Options', 'nosniff');
  if (image.notModified) return reply.code(304).send();
  return reply.code(200).type('image/jpeg').send(image.data);
}

/** @param opts.images - the image service. */
export const imageRoutes: FastifyPluginAsyncTypebox<{ images: ImageService }> = async (app, { images }) => {
  // Loaded at registration, not with the module: `assent import` loads identity's entry but registers no route.
  const { default: multipart } = await import('@fastify/multipart');
  // Threat: memory exhaustion by large or many-part forms; limits are enforced while streaming.
  await app.register(multipart, { limits: UPLOAD_LIMITS, throwFileSizeLimit: true });

  app.post('/users/:userID/image', {
    config: { operation: 'user.image.upload' },
    schema: { ...UPLOAD_SCHEMA, summary: 'Upload the user’s profile image', params: UserParams },
    handler: async (req) => {
      // Access is decided before the body is read: a refused caller's bytes are never decoded.
      const userId = await images.assertMayChange(req.principal!.userId, req.params.userID);
      return { User: await images.upload(userId, await readImageField(req)) };
    },
  });

  app.post('/user/image', {
    config: { operation: 'user.image.upload' },
    schema: {
      ...UPLOAD_SCHEMA,
      summary: 'Upload the signed-in user’s profile image (alias of POST /users/{own ID}/image)',
    },
    handler: async (req) => ({ User: await images.upload(req.principal!.userId, await readImageField(req)) }),
  });

  app.get('/users/:userID/image/:imageID', {
    config: { operation: 'user.image.read' },
    schema: {
      tags,
      security,
      summary: 'Download a user’s profile image (JPEG)',
      description:
        'The user, or the Owner, Admin or Dpo of an organisation the user is subscribed to; anyone else gets a 404. ' +
        'Strong ETag; `If-None-Match` answers 304.',
      produces: ['image/jpeg'],
      params: ImageParams,
      headers: Type.Object({ 'if-none-match': Type.Optional(Type.String({ maxLength: 2048 })) }),
      response: {
        200: Type.String({ format: 'binary', description: 'image/jpeg' }),
        304: Type.Null({ description: 'Not modified' }),
        ...errors(400, 401, 404),
      },
    },
    handler: async (req, reply) => {
      const image = await images.download(
        req.principal!.userId,
        req.params.userID,
        req.params.imageID,
        req.headers['if-none-match'],
      );
      return sendImage(reply, image);
    },
  });

  app.delete('/users/:userID/image', {
    config: { operation: 'user.image.delete' },
    schema: {
      tags,
      security,
      summary: 'Remove the user’s profile image',
      params: UserParams,
      response: { 204: Type.Null(), ...errors(401, 403, 404) },
    },
    handler: async (req, reply) => {
      await images.remove(await images.assertMayChange(req.principal!.userId, req.params.userID));
      return reply.code(204).send(null);
    },
  });
};
