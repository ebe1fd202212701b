/**
 * The staff policy of an organisation (docs/security.md "Staff policy"): whether its staff must use a second factor.
 * When on, a staff member without one is taken to the console's Security page at their next console request and can
 * reach no other console page until they have set one up (the web guard asks `requiresStaffFactor`). Only an Owner
 * changes it; every change is an audit entry with the value before and after.
 */
import { NotFound } from '../../platform/core/errors.js';
import type { Principal } from '../../platform/core/principal.js';
import type { Db, Executor } from '../../platform/db/open.js';
import { type AuditEntry, auditActor, recordAudit } from '../audit/service.js';
import * as store from './store.js';

/** The policy as the API shows it. */
export interface StaffPolicyBody {
  /** Staff must use a second factor to reach the console. */
  StaffMFARequired: boolean;
}

/**
 * Sets the policy in the caller's transaction, with its `organisation.staff-policy.update` entry when it changes.
 * @param actor - who changes it (none for `assent import`, whose entry says source `import`).
 * @returns the policy now.
 * @throws {NotFound} for an unknown organisation.
 */
export async function applyStaffPolicy(
  tx: Executor,
  actor: Pick<AuditEntry, 'actorUserId' | 'actorApiKeyId' | 'source'>,
  orgId: string,
  required: boolean,
): Promise<StaffPolicyBody> {
  const before = await store.staffPolicy(tx, orgId);
  if (before === null) throw new NotFound('Organisation not found');
  if (before !== required) {
    await store.setStaffPolicy(tx, orgId, required);
    await recordAudit(tx, {
      orgId,
      ...actor,
      action: 'organisation.staff-policy.update',
      changes: { staffMfaRequired: { old: before, new: required } },
      detail: {},
    });
  }
  return { StaffMFARequired: required };
}

/** Reads and changes organisations' staff policies. */
export class StaffPolicies {
  /** @param db - the store. */
  constructor(private readonly db: Db) {}

  /**
   * The organisation's policy.
   * @throws {NotFound} for an unknown organisation.
   */
  async read(orgId: string): Promise<StaffPolicyBody> {
    const required = await store.staffPolicy(this.db, orgId);
    if (required === null) throw new NotFound('Organisation not found');
    return { StaffMFARequired: required };
  }

  /** Sets the policy (an Owner, checked by the access policy); see `applyStaffPolicy`. */
  set(actor: Principal, orgId: string, required: boolean): Promise<StaffPolicyBody> {
    return this.db.transaction((tx) => applyStaffPolicy(tx, auditActor(actor), orgId, required));
  }

  /** Whether the user is staff of an organisation whose policy requires a second factor. */
  requiresFactor(userId: string): Promise<boolean> {
    return store.requiresStaffFactor(this.db, userId);
  }
}
