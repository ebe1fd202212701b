/** Rules of the signed-in user's own record. */

import { Unauthenticated } from '../../platform/core/errors.js';
import type { Db } from '../../platform/db/open.js';
import type { UserBody } from './schemas.js';
import * as store from './store.js';

/**
 * What the profile rules ask of the sessions side: the User record with its API key (the User of docs/api.md
 * "Resources"). Declared here so that users/ needs nothing of sessions/, which builds on it.
 */
export interface UserRecords {
  /**
   * The User record of `userId`.
   * @param withApiKey - whether `APIKey` is filled in.
   * @throws {Unauthorized} when the user no longer exists.
   */
  userRecord(userId: string, withApiKey: boolean): Promise<UserBody>;
}

/** Reads and edits a user's own profile. */
export class UserService {
  constructor(
    private readonly db: Db,
    private readonly identity: UserRecords,
  ) {}

  /** The caller's User record, API key included (the User of docs/api.md "Resources"). */
  me(userId: string): Promise<UserBody> {
    return this.identity.userRecord(userId, true);
  }

  /**
   * Changes Name, Phone and Client; fields absent from the patch stay as they are.
   * @throws {Unauthenticated} when the user no longer exists.
   */
  async updateProfile(
    userId: string,
    patch: { name?: string; phone?: string; client?: { token: string; type: number } },
  ): Promise<UserBody> {
    const fields: Parameters<typeof store.updateProfile>[2] = {};
    if (patch.name !== undefined) fields.name = patch.name.trim();
    if (patch.phone !== undefined) fields.phone = patch.phone.trim();
    if (patch.client) {
      fields.clientToken = patch.client.token;
      fields.clientType = patch.client.type;
    }
    if (!(await store.updateProfile(this.db, userId, fields))) throw new Unauthenticated();
    return this.me(userId);
  }
}
