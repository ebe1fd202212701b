/**
 * What the dashboard's pages show, read through the same services as the JSON API (docs/web.md
 * "How it is built": the web layer adds no rule of its own): the individual's organisations, each
 * organisation's consent record, and a page of its history.
 */
import type { ConsentService, HistoryService, OwnRecords } from '../../consent/index.js';
import type { IdentityService, WebSession } from '../../identity/index.js';
import type { Principal } from '../../platform/core/principal.js';
import type { OrgConsents } from './consents.js';
import type { HistoryView } from './history.js';

/** Events per history page (count). */
export const HISTORY_PAGE = 25;

/** The services the dashboard reads through. */
export interface DashboardReads {
  identity: IdentityService;
  consents: ConsentService;
  /** The individual's own records at once (one round trip). */
  ownRecords: OwnRecords;
  history: HistoryService;
}

/** The principal a web session acts as: its user, through its token family (as an access token would). */
export function principalOf(session: WebSession): Principal {
  return { userId: session.userId, via: 'access', familyId: session.familyId };
}

/** The organisations the individual is subscribed to, as the User record lists them. */
export async function subscribedOrgs(
  reads: DashboardReads,
  userId: string,
): Promise<Array<{ id: string; name: string }>> {
  const user = await reads.identity.userRecord(userId, false);
  return (user.Orgs ?? []).map((o) => ({ id: o.OrgID, name: o.Name }));
}

/** Every subscribed organisation's consent record (docs/api.md "Resources" shape), in one read (`OwnRecords`). */
export async function myConsents(reads: DashboardReads, session: WebSession): Promise<OrgConsents[]> {
  const own = await reads.ownRecords.read(principalOf(session));
  return own.map(({ orgName, read }) => ({ orgName, record: reads.consents.recordBody(read, true) }));
}

/**
 * One page of history per organisation (only `onlyOrg`'s when given, from `startId`).
 */
export async function myHistory(
  reads: DashboardReads,
  session: WebSession,
  onlyOrg: string | undefined,
  startId: string | undefined,
): Promise<HistoryView[]> {
  const principal = principalOf(session);
  const orgs = (await subscribedOrgs(reads, session.userId)).filter((o) => !onlyOrg || o.id === onlyOrg);
  return Promise.all(
    orgs.map(async (o) => {
      const path = { orgId: o.id, userId: session.userId };
      const { record } = await reads.consents.open(principal, path, 'history');
      const page = await reads.history.page(record, { startId: o.id === onlyOrg ? startId : undefined }, HISTORY_PAGE);
      const body = reads.consents.recordBody(await reads.consents.read(principal, path), true);
      const names = new Map<string, string>();
      for (const p of body.ConsentsAndPurposes) {
        names.set(p.Purpose.ID, p.Purpose.Name);
        for (const a of p.Consents) names.set(a.ID, a.Description);
      }
      return { orgId: o.id, orgName: o.name, ...page, names };
    }),
  );
}
