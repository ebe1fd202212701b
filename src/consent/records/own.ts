/**
 * An individual's own consent records, all at once (the privacy dashboard's "My consents", docs/web.md "Privacy
 * dashboard"): the records of every organisation they are subscribed to, each as `GET …/users/{userID}/consents`
 * reads it for them (docs/api.md "Permissions and consents"), in one round trip shared under load (`RecordViews.readOwn`).
 */

import { NotFound } from '../../platform/core/errors.js';
import type { Principal } from '../../platform/core/principal.js';
import { isId } from '../../platform/util/ids.js';
import { decideAccess } from './access.js';
import type { RecordViews } from './reads.js';
import type { RecordRead } from './service.js';

/** One subscribed organisation's record, as its read operation sees it. */
export interface OwnRecord {
  /** The organisation's name. */
  orgName: string;
  read: RecordRead;
}

/** Reads an individual's own consent records. */
export class OwnRecords {
  /** @param views - the record reads (batched under load), with the cached catalogues. */
  constructor(private readonly views: RecordViews) {}

  /**
   * The records of every organisation the caller is subscribed to, in organisation ID order, each
   * with the access rule of `ConsentService.read` for the caller's own record.
   * @param principal - the individual.
   * @throws {NotFound} when a subscribed organisation has no record or no catalogue (as `read` would).
   */
  async read(principal: Principal): Promise<OwnRecord[]> {
    if (!isId(principal.userId)) throw new NotFound('Consent record not found');
    const views = await this.views.readOwn(principal.userId);
    return views.map(({ orgName, view }) => {
      decideAccess(principal, view?.roles ?? null, principal.userId, 'read');
      const record = view?.record;
      if (!view || !record?.subscribed) throw new NotFound('Consent record not found');
      return { orgName, read: { record, states: view.states, retention: view.retention } };
    });
  }
}
