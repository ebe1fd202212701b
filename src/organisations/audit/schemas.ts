/** TypeBox schemas of the audit log's routes (docs/audit.md "Reading"); the console's audit page reuses the query. */
import { type Static, Type } from 'typebox';
import { PageQuery } from '../../platform/http/pagination.js';

/** The audit log's query: a page, and filters that must all hold. */
export const AuditQuery = Type.Object({
  ...PageQuery,
  action: Type.Optional(
    Type.String({
      maxLength: 100,
      description:
        'only entries of this action (`purpose.update`), or of every action it starts when it ends in a dot (`purpose.`); "" for all',
    }),
  ),
  actor: Type.Optional(
    Type.String({
      maxLength: 320,
      description:
        'only entries made by this user: a user ID, or the e-mail they had then (case-insensitive); "" for all',
    }),
  ),
  target: Type.Optional(
    Type.String({ maxLength: 100, description: 'only entries that changed this object (its ID); "" for all' }),
  ),
  from: Type.Optional(Type.String({ maxLength: 40, description: 'from this RFC 3339 instant, inclusive' })),
  to: Type.Optional(Type.String({ maxLength: 40, description: 'before this RFC 3339 instant, exclusive' })),
});
/** An audit-log query. */
export type AuditQuery = Static<typeof AuditQuery>;

/** The export's query: the filters of `AuditQuery` (no paging) and the format. */
export const AuditExportQuery = Type.Object({
  format: Type.Union([Type.Literal('csv'), Type.Literal('jsonl')], {
    description: '`csv` (RFC 4180, a header row) or `jsonl` (one JSON entry per line)',
  }),
  action: AuditQuery.properties.action,
  actor: AuditQuery.properties.actor,
  target: AuditQuery.properties.target,
  from: AuditQuery.properties.from,
  to: AuditQuery.properties.to,
});
/** An export query. */
export type AuditExportQuery = Static<typeof AuditExportQuery>;

/** One entry of the audit log: what was done, by whom, from where, when; never a secret. */
export const AuditEntryBody = Type.Object({
  ID: Type.String(),
  Seq: Type.Integer({ description: "the entry's place in the organisation's chain, from 1" }),
  At: Type.String({ description: 'RFC 3339' }),
  Action: Type.String({ description: '`<object>.<verb>`, e.g. `purpose.update` (docs/audit.md "Actions")' }),
  Source: Type.String({ description: '`api`, `console`, `import`, `cli` or `system`' }),
  ActorUserID: Type.String({ description: '"" when no user acted' }),
  ActorAPIKeyID: Type.String({ description: '"" when the actor used no API key' }),
  ActorName: Type.String({ description: "the actor's name when the entry was written" }),
  ActorEmail: Type.String({ description: "the actor's e-mail when the entry was written" }),
  TargetType: Type.String({ description: 'the kind of object changed; "" for the organisation itself' }),
  TargetID: Type.String(),
  Changes: Type.Record(Type.String(), Type.Unknown(), {
    description: 'each changed field with its value before and after (`{"old": …, "new": …}`)',
  }),
  Detail: Type.Record(Type.String(), Type.Unknown(), { description: 'other details (names, counts)' }),
  RequestID: Type.String({ description: 'the `X-Request-Id` of the request that made the change' }),
  ClientIP: Type.String({ description: "the client's IP address as the server saw it" }),
  Link: Type.String({ description: 'the entry\'s chain link, hex (docs/audit.md "Verification")' }),
});
/** An audit-log entry. */
export type AuditEntryBody = Static<typeof AuditEntryBody>;

/** The answer of `GET …/audit-log/verify`. */
export const AuditVerifyBody = Type.Object({
  Valid: Type.Boolean(),
  Entries: Type.Integer({ description: 'entries that verified, from the first' }),
  FirstBrokenSeq: Type.Union([Type.Integer(), Type.Null()]),
  FirstBrokenID: Type.String({ description: 'the first broken entry\'s ID when it exists, else ""' }),
  Reason: Type.String(),
});
