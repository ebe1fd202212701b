/** Rules of the signed-in user's own record. */
import type { Db } from '../../platform/db/open.js';
import { Unauthorized } from '../../platform/http/errors.js';
import type { IdentityService } from '../sessions/service.js';
import type { UserBody } from './schemas.js';
import * as store from './store.js';

/** Reads and edits a user's own profile. */
export class UserService {
  constructor(
    private readonly db: Db,
    private readonly identity: IdentityService,
  ) {}

  /** The caller's User record, API key included (the User of docs/api.md "Resources"). */
  me(userId: string): Promise<UserBody> {
    return this.identity.userRecord(userId, true);
  }

  /**
   * Changes Name, Phone and Client; fields absent from the patch stay as they are.
   * @throws {Unauthorized} when the user no longer exists.
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
    if (!(await store.updateProfile(this.db, userId, fields))) throw new Unauthorized();
    return this.me(userId);
  }
}
