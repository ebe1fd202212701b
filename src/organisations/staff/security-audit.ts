/**
 * Audit entries of a staff member's own sign-in security (docs/audit.md "Actions", docs/security.md): a second
 * factor enrolled or removed, recovery codes renewed or one used. Each organisation where the person holds a role gets
 * the entry, by the person, with them as the target: whoever administers an organisation can see how its staff sign in.
 */
import type { Executor } from '../../platform/db/open.js';
import { recordAudit } from '../audit/service.js';
import { staffOrganisations } from './store.js';

/**
 * Records `action` in the audit log of each organisation where `userId` is staff (none for an individual), in the
 * transaction of the change.
 * @param action - `mfa.totp.enrol`, `mfa.totp.remove`, `mfa.recovery-codes.renew`, `mfa.recovery-code.use`, ….
 * @throws the database's error (the change then rolls back with it).
 */
export async function auditStaffSecurity(tx: Executor, userId: string, action: string): Promise<void> {
  for (const orgId of await staffOrganisations(tx, userId))
    await recordAudit(tx, {
      orgId,
      actorUserId: userId,
      actorApiKeyId: null,
      action,
      target: { type: 'staff', id: userId },
      detail: {},
    });
}
