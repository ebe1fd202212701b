/**
 * Rules of profile images (docs/api.md "User management" "Get user image", "Update user image"; docs/decisions/0010-profile-images.md
 * "Profile images"; docs/api.md "Image upload" and "Identifiers").
 *
 * - Upload and removal: the user themself only. A caller who may see the user's image (Owner,
 *   Admin or Dpo of an organisation the user is subscribed to) gets a 403; anyone else a 404, the
 *   same answer as for a user that does not exist, so user IDs cannot be probed.
 * - Download: the user, or the Owner, Admin or Dpo of an organisation the user is subscribed to;
 *   anyone else, and any unknown or replaced image, gets the same 404.
 */
import { createHash } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { AccessDenied, NotFound, Unauthenticated } from '../../platform/core/errors.js';
import type { Db } from '../../platform/db/open.js';
import { isId } from '../../platform/util/ids.js';
import type { IdentityService } from '../sessions/service.js';
import type { UserBody } from '../users/schemas.js';
import { reencodeImage } from './decode.js';
import * as store from './store.js';

/** What a download answers: the JPEG, or "not modified" for a matching `If-None-Match`. */
export type ImageDownload = { notModified: false; etag: string; data: Buffer } | { notModified: true; etag: string };

/**
 * Whether an `If-None-Match` header matches `etag`, with the weak comparison RFC 9110 §13.1.2
 * prescribes for it (`W/` prefixes ignored; `*` matches any current image).
 * @param header - the header's value, e.g. `"abc", W/"def"`.
 * @param etag - the stored ETag, unquoted.
 */
export function ifNoneMatchMatches(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === `"${etag}"`);
}

/** Uploads, downloads and removes profile images. */
export class ImageService {
  /**
   * @param db - the store.
   * @param identity - presents the User record answered by an upload.
   */
  constructor(
    private readonly db: Db,
    private readonly identity: IdentityService,
  ) {}

  /**
   * Checks that `callerId` may change the image of `userId` (the user themself only). Called
   * before the upload's body is read, so a refused caller's bytes are never decoded.
   * @returns the user ID in canonical (lower-case) form.
   * @throws {AccessDenied} when the caller may see the user's image but is not the user.
   * @throws {NotFound} for anyone else, and for IDs that name no user (docs/api.md "Identifiers").
   */
  async assertMayChange(callerId: string, userId: string): Promise<string> {
    const id = isId(userId) ? userId.toLowerCase() : null;
    if (id === callerId) return id;
    // Threat: user-ID probing; only a caller who can already see this user learns it exists (403).
    if (id && (await store.maySeeUser(this.db, callerId, id)))
      throw new AccessDenied('Only the user themself may change their image');
    throw new NotFound('User not found');
  }

  /**
   * Validates, re-encodes and stores `bytes` as the user's image; the previous image is deleted.
   * @param userId - the caller's own ID, as `assertMayChange` returned it.
   * @param bytes - the uploaded file (at most 5 MiB, enforced while it was streamed).
   * @returns the user's User record (docs/api.md "Resources"), with `ImageID` and the absolute `ImageURL`.
   * @throws {UnsupportedImage} | {InvalidRequest} see `reencodeImage`.
   * @throws {Unauthenticated} when the user no longer exists.
   */
  async upload(userId: string, bytes: Buffer): Promise<UserBody> {
    const image = await reencodeImage(bytes);
    const etag = createHash('sha256').update(image.data).digest('base64url');
    const stored = await store.replaceImage(this.db, userId, {
      id: uuidv7(),
      data: image.data,
      etag,
      width: image.width,
      height: image.height,
    });
    if (!stored) throw new Unauthenticated();
    return this.identity.userRecord(userId, true);
  }

  /**
   * Removes the user's image and clears `users.image_id`; succeeds also when there was none
   * (DELETE is idempotent, RFC 9110 §9.2.2).
   * @param userId - the caller's own ID, as `assertMayChange` returned it.
   */
  async remove(userId: string): Promise<void> {
    await this.db.transaction((tx) => store.removeImages(tx, userId));
  }

  /**
   * The image `imageId` of `userId`, when it is the user's current image and the caller may see it.
   * @param callerId - the authenticated user.
   * @param ifNoneMatch - the request's `If-None-Match`, if any.
   * @throws {NotFound} for an unknown, replaced or removed image, a malformed ID, and a caller who may not see it.
   */
  async download(callerId: string, userId: string, imageId: string, ifNoneMatch?: string): Promise<ImageDownload> {
    if (!isId(userId) || !isId(imageId)) throw new NotFound('Image not found');
    const q = { callerId, userId: userId.toLowerCase(), imageId: imageId.toLowerCase() };
    if (ifNoneMatch !== undefined) {
      // A revalidation reads the ETag only, not the bytes.
      const head = await store.findVisibleImage(this.db, q, false);
      if (!head) throw new NotFound('Image not found');
      if (ifNoneMatchMatches(ifNoneMatch, head.etag)) return { notModified: true, etag: head.etag };
    }
    const found = await store.findVisibleImage(this.db, q, true);
    if (!found?.data) throw new NotFound('Image not found');
    return { notModified: false, etag: found.etag, data: found.data };
  }
}
