/**
 * The consented-user pages of docs/api.md "Permissions and consents": of one attribute of a purpose, or of a purpose
 * (docs/decisions/0008-consent-records-and-catalogue.md "Listings"; docs/api.md "Consented-users
 * pages"); and the organisation's consent overview and trend that summarise them for the console
 * (docs/consents.md "Overview and trend").
 */

import { type IndividualBody, presentIndividual, type RolesCache } from '../../organisations/index.js';
import { InvalidRequest } from '../../platform/core/errors.js';
import type { Principal } from '../../platform/core/principal.js';
import type { Db } from '../../platform/db/open.js';
import { requireOrgRole } from '../../platform/http/auth.js';
import { keysetPage } from '../../platform/http/pagination.js';
import { ACCESS_POLICY } from '../../platform/http/policy.js';
import { isId } from '../../platform/util/ids.js';
import type { CatalogueCache } from '../catalogue/cache.js';
import type { OverviewBody, TrendBody } from '../records/schemas.js';
import { onCatalogue } from './on-catalogue.js';
import { overviewCounts, trendDays, type ValueCounts } from './overview-store.js';
import { consentedUsers } from './store.js';

/** Longest trend (days): a year, leap day included. */
export const MAX_TREND_DAYS = 366;
/** Trend length when none is asked (days). */
export const DEFAULT_TREND_DAYS = 90;

/**
 * Parses the trend's `days`.
 * @param raw - the query value, or undefined.
 * @returns days, 1..366 (90 when absent).
 * @throws {InvalidRequest} when it is not a whole number in 1..366.
 */
export function trendLength(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_TREND_DAYS;
  const n = Number(raw);
  if (!/^\d{1,3}$/.test(raw) || n < 1 || n > MAX_TREND_DAYS)
    throw new InvalidRequest(`days must be a whole number from 1 to ${MAX_TREND_DAYS}`);
  return n;
}

/** Consented-user pages, and the overview and trend of an organisation's consents. */
export class ListingService {
  /**
   * @param db - the database.
   * @param catalogues - the organisations' purposes and data attributes, cached and version-checked.
   * @param roles - the cached roles of users in organisations (the overview's and trend's own access check).
   */
  constructor(
    private readonly db: Db,
    private readonly catalogues: CatalogueCache,
    private readonly roles: RolesCache,
  ) {}

  /**
   * Per live purpose and live data attribute, how many subscribed individuals' values are Allow, Disallow (an AskMe
   * that ran out included, as the consents API reads it), AskMe and undecided (nothing stored; the consents API reads
   * the purpose's default), at one instant; and `Consented`, the size of the attribute's consented-users page.
   * Purposes and attributes in the catalogue's order, a purpose without attributes with none.
   * @throws {NotFound} when the organisation does not exist; {AccessDenied} when the caller is not its Owner, Admin, Dpo
   *   or Developer (the policy row `consents.overview`, checked here too for callers other than the HTTP guard);
   *   {Conflict} when the catalogue kept changing during the request.
   */
  async overview(principal: Principal, orgId: string): Promise<OverviewBody> {
    await this.authorise(principal, orgId, ACCESS_POLICY['consents.overview'].orgRoles);
    return onCatalogue(this.catalogues, orgId, {}, async (catalogue) => {
      const found = await overviewCounts(this.db, {
        orgId,
        catalogueVersion: catalogue.version,
        purposes: catalogue.purposes,
      });
      if (found === null || found === 'stale') return found;
      const none = { allow: 0, disallow: 0, askMe: 0 };
      const purposes = catalogue.purposes.map((p) => ({
        ID: p.id,
        Name: p.name,
        LawfulUsage: p.lawfulUsage,
        Attributes: p.attributes.map((a) => {
          const c = found.counts.get(`${p.id}/${a.id}`) ?? none;
          const undecided = found.individuals - c.allow - c.disallow - c.askMe;
          const consented = c.allow + c.askMe + (p.lawfulUsage ? undecided : 0);
          return {
            ID: a.id,
            Name: a.name,
            Allow: c.allow,
            Disallow: c.disallow,
            AskMe: c.askMe,
            Undecided: undecided,
            Consented: consented,
          };
        }),
      }));
      return { OrgID: orgId, At: found.at.toISOString(), Individuals: found.individuals, Purposes: purposes };
    });
  }

  /**
   * Per UTC day of the last `days` (today last): the consent history's changes to each value, and the attribute
   * consents of the live purposes (or of one) that read each value at the day's end, for the individuals subscribed
   * now (docs/consents.md "Overview and trend"). Today's totals are the overview's sums.
   * @param query.days - as sent: 1..366 (days), default 90.
   * @param query.purposeId - as sent: one live purpose, or undefined for all.
   * @throws {InvalidRequest} for a bad `days`; {NotFound} when the organisation does not exist or the purpose is not a
   *   live one of it; {AccessDenied} as `overview` (policy row `consents.trend`); {Conflict} as `overview`.
   */
  async trend(principal: Principal, orgId: string, query: { days?: string; purposeId?: string }): Promise<TrendBody> {
    await this.authorise(principal, orgId, ACCESS_POLICY['consents.trend'].orgRoles);
    const days = trendLength(query.days);
    const { purposeId } = query;
    return onCatalogue(this.catalogues, orgId, { purposeId }, async (catalogue) => {
      const purposes = purposeId === undefined ? catalogue.purposes : [catalogue.byId.get(purposeId)!];
      const trend = await trendDays(this.db, { orgId, catalogueVersion: catalogue.version, purposes }, days);
      if (trend === null || trend === 'stale') return trend;
      const values = (d: ValueCounts) => ({ Allow: d.allow, Disallow: d.disallow, AskMe: d.askMe });
      return {
        OrgID: orgId,
        PurposeID: purposeId ?? '',
        From: trend.days[0]!.day.toISOString(),
        To: trend.now.toISOString(),
        Days: trend.days.map((d) => ({
          Date: d.day.toISOString().slice(0, 10),
          Changes: values(d.changes),
          Totals: values(d.totals),
        })),
      };
    });
  }

  /**
   * Threat: organisation-wide consent figures read by someone who is not the organisation's staff, through a caller
   * of the service (the console) that skipped the HTTP guard.
   * @throws {NotFound} | {AccessDenied} as `requireOrgRole`.
   */
  private authorise(principal: Principal, orgId: string, allowed: readonly number[]): Promise<void> {
    return requireOrgRole((o, u) => this.roles.rolesIn(o, u), orgId, principal.userId, allowed);
  }

  /**
   * One page of the users consenting to the purpose (or to one of its attributes), by user ID: the
   * purpose and its attributes from the cached catalogue, then one statement that lists only while
   * that catalogue is current (else the catalogue is reloaded and the page asked again).
   * @param attributeId - undefined for the purpose's page.
   * @param startId - exclusive; a malformed one starts nowhere (empty page).
   * @param limit - page size (count).
   * @returns the users and, when another page exists, its start.
   * @throws {NotFound} when the organisation does not exist, the purpose is not the organisation's,
   *   or the attribute not the purpose's; {Conflict} when the catalogue kept changing during the request.
   */
  async page(
    orgId: string,
    purposeId: string,
    attributeId: string | undefined,
    startId: string | undefined,
    limit: number,
  ): Promise<{ users: IndividualBody[]; next?: string }> {
    return onCatalogue(
      this.catalogues,
      orgId,
      { purposeId, attributeIds: attributeId === undefined ? undefined : [attributeId] },
      async (catalogue) => {
        const purpose = catalogue.byId.get(purposeId)!;
        if (startId !== undefined && !isId(startId)) return { users: [] };
        const found = await consentedUsers(this.db, {
          orgId,
          catalogueVersion: catalogue.version,
          purposeId,
          attributeIds: attributeId ? [attributeId] : purpose.attributes.map((a) => a.id),
          lawfulUsage: purpose.lawfulUsage,
          after: startId,
          limit: limit + 1,
        });
        if (found === null || found === 'stale') return found;
        const page = keysetPage(found, limit, (u) => u.id);
        return { users: page.items.map(presentIndividual), next: page.next };
      },
    );
  }
}
