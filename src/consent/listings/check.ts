/**
 * The bulk consent check (docs/api.md "Bulk consent check"; docs/consents.md "Bulk consent check"): for systems that
 * enforce consent at volume, the values in force now of up to 1,000 individuals for the attributes of one purpose,
 * read in one statement with the consent history's sequence number they reflect.
 */
import type { RolesCache } from '../../organisations/index.js';
import { InvalidRequest } from '../../platform/core/errors.js';
import type { Principal } from '../../platform/core/principal.js';
import type { Db } from '../../platform/db/open.js';
import { requireOrgRole } from '../../platform/http/auth.js';
import { ACCESS_POLICY } from '../../platform/http/policy.js';
import { isId } from '../../platform/util/ids.js';
import type { CatalogueCache } from '../catalogue/cache.js';
import type { ChainSealer } from '../evidence/sealer.js';
import { counts, defaultConsent, effectiveValue, expiryOf, type StoredConsent } from '../model/values.js';
import { type CheckedIndividual, readCheck } from './check-store.js';
import { onCatalogue } from './on-catalogue.js';
import { type CheckBody, type CheckedAttribute, type CheckInput, MAX_CHECK_USERS } from './schemas.js';

/**
 * The user IDs of a check, checked: each well-formed and sent once.
 * @param userIds - as sent.
 * @returns the same IDs in lower case, in order.
 * @throws {InvalidRequest} for none, more than `MAX_CHECK_USERS` (1,000), a malformed ID or one sent twice (compared
 *   without regard to case); the message names the first offending position.
 */
export function checkUserIds(userIds: readonly string[]): string[] {
  if (userIds.length === 0 || userIds.length > MAX_CHECK_USERS)
    throw new InvalidRequest(`userids must hold 1 to ${MAX_CHECK_USERS} user IDs (got ${userIds.length})`);
  const seen = new Map<string, number>();
  return userIds.map((raw, i) => {
    if (!isId(raw)) throw new InvalidRequest(`userids[${i}] is not a user ID`);
    const id = raw.toLowerCase();
    const first = seen.get(id);
    if (first !== undefined) throw new InvalidRequest(`userids[${i}] repeats userids[${first}]; send each ID once`);
    seen.set(id, i);
    return id;
  });
}

/**
 * One attribute as the consents API reads it at `at`: the stored value, or the purpose's default; an AskMe whose
 * days ran out reads Disallow (docs/api.md "Defaults", "Count", "AskMe with days"; `effectiveValue`, `counts`).
 * @param attributeId - the attribute.
 * @param consent - its stored consent, or the default.
 * @param at - the instant of reading.
 */
export function checkedAttribute(attributeId: string, consent: StoredConsent, at: Date): CheckedAttribute {
  const value = effectiveValue(consent, at);
  const answer: CheckedAttribute = { AttributeID: attributeId, Value: value, Counts: counts(consent, at) };
  const expiry = expiryOf(consent.value, consent.days, consent.decidedAt);
  if (value === 'AskMe' && expiry) {
    answer.Days = consent.days;
    answer.Expires = expiry.toISOString();
  }
  return answer;
}

/** The bulk consent check. */
export class ConsentCheckService {
  /**
   * @param db - the database.
   * @param catalogues - the organisations' purposes and data attributes, cached and version-checked.
   * @param roles - the cached roles of users in organisations (the service's own access check).
   * @param sealer - flushed before each check, so that its `Seq` covers every event committed before it.
   */
  constructor(
    private readonly db: Db,
    private readonly catalogues: CatalogueCache,
    private readonly roles: RolesCache,
    private readonly sealer: ChainSealer,
  ) {}

  /**
   * For each individual asked, in the order sent: whether they are subscribed to the organisation and, when they are,
   * the value in force of each attribute asked (the purpose's live attributes when none is), whether it counts, and
   * the consent history's sequence number the values were read at. Changes nothing.
   *
   * `Seq`: the organisation's events committed before the call are sealed first (`ChainSealer.flush`); the values,
   * `now()` and the chain head are then read in one statement, so every event numbered up to `Seq` is reflected in the
   * values. A change committed during the call, after the sealing, may be reflected too, its event getting a number
   * above `Seq` when it is sealed; an AskMe whose days ran out reads Disallow before the sweep's event records it.
   * @param body - as validated by the schema (lengths); IDs are checked here.
   * @throws {NotFound} when the organisation does not exist, the purpose is not a live one of it, or an attribute not
   *   a live one of the purpose (as the consent operations, docs/api.md "Identifiers"); {AccessDenied} when the caller
   *   is not its Owner, Admin, Dpo or Developer (policy row `consents.check`, checked here too for callers other than
   *   the HTTP guard); {InvalidRequest} for bad user IDs (`checkUserIds`) or an empty `attributeids`; {Conflict} when
   *   the catalogue kept changing during the call.
   */
  async check(principal: Principal, orgId: string, body: CheckInput): Promise<CheckBody> {
    await requireOrgRole(
      (o, u) => this.roles.rolesIn(o, u),
      orgId,
      principal.userId,
      ACCESS_POLICY['consents.check'].orgRoles,
    );
    const userIds = checkUserIds(body.userids);
    if (body.attributeids?.length === 0) throw new InvalidRequest('attributeids, when sent, must name an attribute');
    const asked = body.attributeids === undefined ? undefined : [...new Set(body.attributeids)];
    const purposeId = body.purposeid;
    return onCatalogue(this.catalogues, orgId, { purposeId, attributeIds: asked }, async (catalogue) => {
      const purpose = catalogue.byId.get(purposeId)!;
      // Once the request is known good: a refused one writes nothing, not even seals.
      await this.sealer.flush(orgId);
      // Catalogue IDs are lower case; `asked` matched them exactly.
      const attributeIds = asked ?? purpose.attributes.map((a) => a.id);
      const found = await readCheck(this.db, {
        orgId,
        catalogueVersion: catalogue.version,
        purposeId: purpose.id,
        attributeIds,
        userIds,
      });
      if (found === null || found === 'stale') return found;
      const present = (one: CheckedIndividual | undefined) => {
        if (!one?.subscribed) return [];
        const stored = new Map(one.stored.map((s) => [s.attributeId, s]));
        return attributeIds.map((id) => {
          const s = stored.get(id);
          // A default's time (the record's creation) changes nothing here: it has no days, so never runs out.
          const consent = s
            ? { value: s.value, days: s.days, decidedAt: new Date(s.decidedAtMs), isDefault: false }
            : defaultConsent(purpose.lawfulUsage, found.at);
          return checkedAttribute(id, consent, found.at);
        });
      };
      return {
        OrgID: orgId,
        PurposeID: purpose.id,
        LawfulUsage: purpose.lawfulUsage,
        ReadAt: found.at.toISOString(),
        Seq: found.seq,
        Individuals: body.userids.map((sent, i) => {
          const one = found.individuals.get(userIds[i]!);
          return { UserID: sent, Subscribed: one?.subscribed ?? false, Attributes: present(one) };
        }),
      };
    });
  }
}
