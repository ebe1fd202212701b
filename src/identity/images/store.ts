/**
 * SQL of profile images: the table `user_images` and the pointer `users.image_id`
 * (docs/decisions/0010-profile-images.md; schema in `platform/db/schema/users.ts`, migration 0003).
 */
import { and, eq, isNull, ne, type SQL, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../platform/db/open.js';
import { userImages, users } from '../../platform/db/schema/index.js';
import { Role } from '../users/roles.js';

/**
 * Roles whose holders see the images of the users subscribed to their organisation
 * (docs/decisions/0010-profile-images.md "Download").
 */
export const IMAGE_VIEWER_ROLES = [Role.Owner, Role.Admin, Role.Dpo] as const;

/** A re-encoded image to store. */
export interface NewImage {
  /** UUIDv7, the `{imageID}` of the paths. */
  id: string;
  /** JPEG bytes. */
  data: Buffer;
  /** SHA-256 of `data`, base64url (sent quoted as the strong ETag). */
  etag: string;
  /** pixels */
  width: number;
  /** pixels */
  height: number;
}

/**
 * SQL condition: `callerId` may see the images of `userId` — the user themself, or a holder of
 * Owner, Admin or Dpo in an organisation `userId` is subscribed to (table `subscriptions`).
 */
function callerMaySee(callerId: string, userId: SQL | string): SQL {
  const roles = sql.join(
    IMAGE_VIEWER_ROLES.map((r) => sql`${r}`),
    sql`, `,
  );
  return sql`(${callerId}::uuid = ${userId} OR EXISTS (
    SELECT 1 FROM subscriptions s JOIN user_roles r ON r.org_id = s.org_id
    WHERE s.user_id = ${userId} AND r.user_id = ${callerId}::uuid AND r.role_id IN (${roles})))`;
}

/**
 * Whether `callerId` may see `userId`'s image (see `callerMaySee`); false for an unknown or deleted user.
 * @param callerId - the authenticated user (a UUID).
 * @param userId - a UUID (the caller checks the form first).
 */
export async function maySeeUser(db: Executor, callerId: string, userId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.id, userId), isNull(users.deletedAt), callerMaySee(callerId, sql`${users.id}`)));
  return Boolean(row);
}

/**
 * The current image `imageId` of `userId` when `callerId` may see it, in one statement.
 * @param withData - false to read only the ETag (to answer a conditional GET with 304).
 * @returns the ETag and, with `withData`, the JPEG bytes; null when there is no such current
 *   image, the user is deleted, or the caller may not see it.
 */
export async function findVisibleImage(
  db: Executor,
  q: { callerId: string; userId: string; imageId: string },
  withData: boolean,
): Promise<{ etag: string; data: Buffer | null } | null> {
  const [row] = await db
    .select({ etag: userImages.etag, data: withData ? userImages.data : sql<null>`NULL` })
    .from(userImages)
    .innerJoin(
      users,
      and(eq(users.id, userImages.userId), sql`${users.imageId} = ${userImages.id}::text`, isNull(users.deletedAt)),
    )
    .where(
      and(
        eq(userImages.id, q.imageId),
        eq(userImages.userId, q.userId),
        callerMaySee(q.callerId, sql`${userImages.userId}`),
      ),
    );
  return row ? { etag: row.etag, data: row.data ?? null } : null;
}

/**
 * Stores `image` as the user's current image and deletes every other image of the user, in one
 * transaction under the user's row lock, so two simultaneous uploads leave exactly one image.
 * @returns false when the user does not exist or is deleted (nothing is written).
 */
export async function replaceImage(db: Db, userId: string, image: NewImage): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [owner] = await tx
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.id, userId), isNull(users.deletedAt)))
      .for('update');
    if (!owner) return false;
    await tx.insert(userImages).values({ ...image, userId });
    await tx.update(users).set({ imageId: image.id, updatedAt: sql`now()` }).where(eq(users.id, userId));
    // A replaced image is deleted, not kept (docs/decisions/0010-profile-images.md; data minimisation, GDPR Art.
    // 5(1)(c)).
    await tx.delete(userImages).where(and(eq(userImages.userId, userId), ne(userImages.id, image.id)));
    return true;
  });
}

/**
 * Removes the user's image: clears `users.image_id` (which takes the row lock first, as
 * `replaceImage` does) and deletes every `user_images` row of the user. Run it inside a
 * transaction; account deletion may call it with its own.
 * @returns whether the user had an image.
 */
export async function removeImages(tx: Executor, userId: string): Promise<boolean> {
  await tx.update(users).set({ imageId: '', updatedAt: sql`now()` }).where(eq(users.id, userId));
  const deleted = await tx.delete(userImages).where(eq(userImages.userId, userId)).returning({ id: userImages.id });
  return deleted.length > 0;
}
