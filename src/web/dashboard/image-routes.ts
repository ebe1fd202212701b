/**
 * The profile image on the dashboard's "My data" page (docs/web.md "Privacy dashboard";
 * docs/decisions/0010-profile-images.md), through the image service and the form reader of
 * `POST {base}/user/image`, so the same limits, detection, re-encoding and errors apply:
 * - `POST /dashboard/data/image`: `multipart/form-data`, the CSRF token in the field `_csrf` before
 *   the file (or the `x-csrf-token` header), the image in the field `userimage`;
 * - `GET /dashboard/data/image`: the session's own current image (JPEG), so the page needs no token.
 *
 * `@fastify/multipart` is registered inside this plugin only, so no other web route accepts a form
 * of that type.
 */
import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import {
  type ImageService,
  readImageField,
  sendImage,
  UPLOAD_LIMITS,
  type UserService,
  type WebSession,
} from '../../identity/index.js';
import { AssentError, NotFound } from '../../platform/core/errors.js';
import { httpHeadersOf, httpStatusOf } from '../../platform/http/errors.js';
import { assertMultipartCsrf } from '../shared/guard.js';
import { seeOther, sendPage } from '../shared/html.js';
import { DataPage } from './data.js';

/** What the image routes call. */
export interface DashboardImageDeps {
  images: ImageService;
  users: UserService;
}

const signedIn = { web: 'signed-in', signIn: '/dashboard/sign-in' } as const;
const session = (req: FastifyRequest) => req.webSession as WebSession;

/** @param opts - the image and user services. */
export const dashboardImageRoutes: FastifyPluginAsyncTypebox<DashboardImageDeps> = async (app, deps) => {
  // Threat: memory exhaustion by large or many-part forms; the API's limits, enforced while streaming.
  await app.register(multipart, { limits: UPLOAD_LIMITS, throwFileSizeLimit: true });

  app.post('/dashboard/data/image', {
    config: { operation: 'web.dashboard.image.upload', ...signedIn, csrfInMultipart: true },
    handler: async (req, reply) => {
      const s = session(req);
      try {
        // The token is checked before any byte of the file is read (the guard leaves a multipart form's to here).
        const bytes = await readImageField(req, { beforeFile: (fields) => assertMultipartCsrf(req, fields._csrf) });
        await deps.images.upload(s.userId, bytes);
      } catch (err) {
        // A refused file (too large, not an image, …) is a message on the page, with the API's status.
        if (
          !(err instanceof AssentError) ||
          httpStatusOf(err) < 400 ||
          httpStatusOf(err) >= 500 ||
          httpStatusOf(err) === 403
        )
          throw err;
        reply.headers(httpHeadersOf(err));
        const user = await deps.users.me(s.userId);
        return sendPage(reply, DataPage({ user, csrfToken: s.csrfToken, error: err.message }), httpStatusOf(err));
      }
      return seeOther(reply, '/dashboard/data?done=image', false);
    },
  });

  app.get('/dashboard/data/image', {
    config: { operation: 'web.dashboard.image', ...signedIn },
    handler: async (req, reply) => {
      const { userId } = session(req);
      const { ImageID } = await deps.users.me(userId);
      if (!ImageID) throw new NotFound('You have no profile image');
      // The API's download rule (ImageService.download): the user's own current image.
      return sendImage(reply, await deps.images.download(userId, userId, ImageID, req.headers['if-none-match']));
    },
  });
};
