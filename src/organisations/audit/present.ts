/** An audit entry as the API, the export and the console show it (docs/audit.md "Entries"). */
import type { AuditEntryBody } from './schemas.js';
import type { AuditRow } from './store.js';

/**
 * An entry as the API shows it.
 * @param e - a sealed entry (`AuditLogService.page` seals before it reads).
 */
export function presentAuditEntry(e: AuditRow): AuditEntryBody {
  return {
    ID: e.id,
    Seq: e.seq ?? 0,
    At: e.at.toISOString(),
    Action: e.action,
    Source: e.source,
    ActorUserID: e.actorUserId ?? '',
    ActorAPIKeyID: e.actorApiKeyId ?? '',
    ActorName: e.actorName,
    ActorEmail: e.actorEmail,
    TargetType: e.targetType,
    TargetID: e.targetId,
    Changes: e.changes as Record<string, unknown>,
    Detail: e.detail as Record<string, unknown>,
    RequestID: e.requestId,
    ClientIP: e.clientIp,
    Link: e.link?.toString('hex') ?? '',
  };
}
