/** TypeBox schemas of the organisation routes: the admin roles and the audit log (docs/api.md; `audit/`). */
import { type Static, Type } from 'typebox';
import { PageQuery } from '../../platform/http/pagination.js';

/** The answer of `GET {base}/organizations/roles`: each role's numeric ID and name. */
export const RolesResponse = Type.Object({
  Roles: Type.Array(Type.Object({ ID: Type.Integer(), Role: Type.String() })),
});

/** The audit log's query: a page, and exact-match filters (the console's audit page reuses them). */
export const AuditQuery = Type.Object({
  ...PageQuery,
  action: Type.Optional(
    Type.String({ maxLength: 100, description: 'only entries of this action, e.g. `idp.update`; "" for all' }),
  ),
  actor: Type.Optional(
    Type.String({ maxLength: 100, description: 'only entries made by this user (a user ID); "" for all' }),
  ),
});
/** An audit-log query. */
export type AuditQuery = Static<typeof AuditQuery>;

/** One entry of the audit log: what was done, by whom, when; `Detail` never holds a secret. */
export const AuditEntry = Type.Object({
  ID: Type.String(),
  Action: Type.String({ description: 'e.g. `idp.create`, `idp.update`, `idp.delete`, `idp.app-redirect-uris.update`' }),
  ActorUserID: Type.String(),
  ActorAPIKeyID: Type.String({ description: '"" when the actor used an access token' }),
  Detail: Type.Record(Type.String(), Type.Unknown(), {
    description: 'changed field names and the like; never a secret',
  }),
  At: Type.String({ description: 'RFC 3339' }),
});
/** An audit-log entry. */
export type AuditEntry = Static<typeof AuditEntry>;
