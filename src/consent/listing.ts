/**
 * The consented-user pages of SPEC 4.3: of one attribute of a purpose, or of a purpose (issue #3
 * "Listings"; NOTES.md "Consented-users pages").
 */
import type { Db } from '../db/open.js';
import { NotFound } from '../http/errors.js';
import type { IndividualBody } from '../individuals/service.js';
import { isId } from '../util/ids.js';
import { consentedUsers } from './listing-store.js';
import { readConsents } from './store.js';

/** Consented-user pages. */
export class ListingService {
  constructor(private readonly db: Db) {}

  /**
   * One page of the users consenting to the purpose (or to one of its attributes), by user ID.
   * @param attributeId - undefined for the purpose's page.
   * @param startId - exclusive; a malformed one starts nowhere (empty page).
   * @returns the users and, when another page exists, its start.
   * @throws {NotFound} when the purpose is not the organisation's, or the attribute not the purpose's.
   */
  async page(orgId: string, purposeId: string, attributeId: string | undefined, startId: string | undefined, limit: number): Promise<{ users: IndividualBody[]; next?: string }> {
    if (!isId(purposeId)) throw new NotFound('Purpose not found');
    // The purpose's live configuration: a nil record ID reads it without any individual's consents.
    const rows = await readConsents(this.db, orgId, '00000000-0000-0000-0000-000000000000', purposeId);
    if (rows.length === 0) throw new NotFound('Purpose not found');
    const attributes = rows.flatMap((r) => (r.attributeId ? [r.attributeId] : []));
    if (attributeId !== undefined && !attributes.includes(attributeId)) throw new NotFound('Attribute not found in this purpose');
    if (startId !== undefined && !isId(startId)) return { users: [] };
    const found = await consentedUsers(this.db, {
      orgId,
      purposeId,
      attributeIds: attributeId ? [attributeId] : attributes,
      lawfulUsage: rows[0]!.lawfulUsage,
      after: startId,
      limit: limit + 1,
    });
    const users = found.slice(0, limit).map((u) => ({ ID: u.id, Name: u.name, Phone: u.phone, Email: u.email }));
    return { users, next: found.length > limit ? users.at(-1)!.ID : undefined };
  }
}
