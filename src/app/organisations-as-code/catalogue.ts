/**
 * The catalogue part of `assent import` (docs/decisions/0004-organisations-as-code.md): an organisation's purposes and
 * their data attributes, created, updated or restored by key, with the catalogue's outbox events (docs/events.md "What
 * is emitted") and the audit entries (docs/audit.md, source `import`, no actor) for what the file creates, restores or
 * changes, and none for what it repeats.
 */
import { dataAttributeEvent, purposeEvent } from '../../consent/index.js';
import { auditChanges, recordAudit } from '../../organisations/index.js';
import type { Executor } from '../../platform/db/open.js';
import { appendOrganisationEvents, type OutboxEvent } from '../../platform/events/outbox.js';
import type { ImportOrganisation } from './schema.js';
import * as store from './store.js';

/**
 * Imports the purposes in the import's transaction.
 * @returns each purpose's ID and its attributes' IDs, by key.
 * @throws the database's error (the whole import then rolls back).
 */
export async function importCatalogue(
  tx: Executor,
  orgId: string,
  purposes: NonNullable<ImportOrganisation['purposes']>,
): Promise<Record<string, { id: string; attributes: Record<string, string> }>> {
  const out: Record<string, { id: string; attributes: Record<string, string> }> = {};
  // The catalogue's events (docs/events.md), for what the file creates, restores or changes; none for what it repeats.
  const events: OutboxEvent[] = [];
  for (const p of purposes) {
    const fields = {
      name: p.name,
      description: p.description ?? '',
      lawfulUsage: p.lawfulUsage ?? false,
      policyUrl: p.policyUrl ?? '',
    };
    const before = await store.purposeByKey(tx, orgId, p.key);
    const purposeId = await store.upsertPurpose(tx, { orgId, key: p.key, ...fields });
    const change = catalogueChange(
      before,
      before && Object.entries(fields).some(([k, v]) => before[k as keyof typeof fields] !== v),
    );
    if (change) {
      events.push(purposeEvent(change, { orgId, id: purposeId, ...fields }));
      const was = change === 'updated' && before ? pick(before, fields) : null;
      const action = change === 'created' ? 'purpose.create' : 'purpose.update';
      await imported(tx, orgId, action, 'purpose', purposeId, { changes: auditChanges(was, fields) });
    }
    const attributes: Record<string, string> = {};
    for (const a of p.attributes ?? []) {
      const was = await store.attributeByKey(tx, purposeId, a.key);
      const id = await store.upsertAttribute(tx, { orgId, purposeId, key: a.key, name: a.name });
      attributes[a.key] = id;
      const changed = catalogueChange(was, was && (was.name !== a.name || !was.linked));
      if (changed) {
        events.push(dataAttributeEvent(changed, orgId, id, a.name, [purposeId]));
        const action = changed === 'created' ? 'template.create' : 'template.update';
        const before = changed === 'updated' && was ? { name: was.name, linked: was.linked } : null;
        const changes = auditChanges(before, { name: a.name, linked: true });
        await imported(tx, orgId, action, 'data_attribute', id, { changes, detail: { purposeId } });
      }
    }
    out[p.key] = { id: purposeId, attributes };
  }
  await appendOrganisationEvents(tx, orgId, events);
  return out;
}

/** `row`'s values of `fields`' keys. */
function pick(row: object, fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.keys(fields).map((k) => [k, (row as Record<string, unknown>)[k]]));
}

/**
 * Records what the import did to one object (docs/audit.md "Actions": a catalogue entry, a staff member's roles, an
 * individual added), in the import's transaction: source `import`, no actor.
 * @param action - `purpose.create`, `staff.roles.update`, … (docs/audit.md).
 * @param type - the target's kind; `id` its ID.
 */
export function imported(
  tx: Executor,
  orgId: string,
  action: string,
  type: string,
  id: string,
  what: { changes: Record<string, { old: unknown; new: unknown }>; detail?: Record<string, unknown> },
): Promise<void> {
  return recordAudit(tx, {
    orgId,
    actorUserId: null,
    actorApiKeyId: null,
    action,
    target: { type, id },
    changes: what.changes,
    detail: what.detail ?? {},
    source: 'import',
  });
}

/**
 * What an import did to one catalogue entry: `created` when it did not exist or was deleted (restored), `updated` when
 * it existed with other values, undefined when the file repeats it.
 * @param before - the entry before the import, or undefined.
 * @param differs - whether the file's values differ from `before`'s.
 */
function catalogueChange(
  before: { deletedAt: Date | null } | undefined,
  differs: boolean | undefined,
): 'created' | 'updated' | undefined {
  if (!before || before.deletedAt) return 'created';
  return differs ? 'updated' : undefined;
}
