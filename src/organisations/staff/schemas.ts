/** TypeBox schemas of the staff routes (docs/staff.md). */
import { type Static, Type } from 'typebox';
import { MAX_PASSWORD_INPUT } from '../../identity/index.js';
import { Links } from '../../platform/http/pagination.js';
import { MAX_EMAIL } from '../../platform/mail/address.js';

/** A RoleID: 1 Admin, 2 Dpo, 3 Developer, 4 Owner. */
const RoleID = Type.Integer({ minimum: 1, maximum: 4, description: '1 Admin, 2 Dpo, 3 Developer, 4 Owner' });
/** A set of RoleIDs as a request names it. */
const RoleIDs = Type.Array(RoleID, { minItems: 1, maxItems: 4, description: 'RoleIDs, at least one' });

/** A staff member as the API answers them. */
export const StaffMember = Type.Object({
  ID: Type.String({ description: 'the user ID' }),
  Username: Type.String(),
  Name: Type.String(),
  Email: Type.String(),
  Roles: Type.Array(Type.Object({ RoleID: Type.Integer(), Role: Type.String() })),
});

/** A page of staff. */
export const StaffPage = Type.Object({ Admins: Type.Array(StaffMember), Links });

/** A pending staff invitation; times are RFC 3339. */
export const StaffInvitation = Type.Object({
  ID: Type.String(),
  Email: Type.String(),
  Roles: Type.Array(Type.Integer(), { description: 'the RoleIDs it grants' }),
  CreatedBy: Type.String({ description: 'ID of the Owner who invited' }),
  CreatedAt: Type.String({ format: 'date-time' }),
  ExpiresAt: Type.String({ format: 'date-time' }),
});

/** A page of pending staff invitations. */
export const StaffInvitationPage = Type.Object({ Invitations: Type.Array(StaffInvitation), Links });

/** The body of `POST …/admins`: the address the link is mailed to and the roles it grants. */
export const InviteBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: MAX_EMAIL + 100, description: 'the address the link is mailed to' }),
  roles: RoleIDs,
});
/** An invitation's body. */
export type InviteBody = Static<typeof InviteBody>;

/** The body of `PUT …/admins/{userID}`: the roles the member holds from now on. */
export const RolesBody = Type.Object({ roles: RoleIDs });

/** The path of one staff member. */
export const StaffParams = Type.Object({ organizationID: Type.String(), userID: Type.String() });
/** The path of one staff invitation. */
export const StaffInvitationParams = Type.Object({ organizationID: Type.String(), invitationID: Type.String() });

/** The token of the mailed link's fragment. */
const Token = Type.String({
  minLength: 1,
  maxLength: 256,
  description: 'the `token` of the link’s fragment (`/staff-invitations/accept#token=…`)',
});

/** The body of `POST {base}/user/staff-invitations/accept`. */
export const AcceptBody = Type.Object({ token: Token });

/** The body of `POST {base}/staff-invitations/register`: the token, the new account's name and password. */
export const RegisterBody = Type.Object({
  token: Token,
  name: Type.String({ minLength: 1, maxLength: 200 }),
  password: Type.String({ maxLength: MAX_PASSWORD_INPUT }),
});

/** What an acceptance answers: the organisation and the person's roles there now. */
export const Joined = Type.Object({
  Org: Type.Object({ OrgID: Type.String(), Name: Type.String() }),
  Staff: StaffMember,
});

/** The staff policy (docs/security.md "Staff policy"). */
export const StaffPolicy = Type.Object({
  StaffMFARequired: Type.Boolean({ description: 'staff must use a second factor to reach the console' }),
});

/** The body of `PUT …/staff-policy`. */
export const StaffPolicyBody = Type.Object({ staffmfarequired: Type.Boolean() });
