/** TypeBox schemas of the invitation routes (docs/consents.md "Invitations"). */
import { type Static, Type } from 'typebox';
import { MAX_EMAIL } from '../../platform/mail/address.js';

/** A pending invitation as the API answers it; times are RFC 3339. */
export const Invitation = Type.Object({
  ID: Type.String(),
  Email: Type.String(),
  CreatedBy: Type.String({ description: 'ID of the staff member who invited' }),
  CreatedAt: Type.String({ format: 'date-time' }),
  ExpiresAt: Type.String({ format: 'date-time' }),
});
/** An invitation body. */
export type Invitation = Static<typeof Invitation>;

/** The path of `DELETE …/invitations/{invitationID}`: the organisation and the invitation. */
export const InvitationParams = Type.Object({ organizationID: Type.String(), invitationID: Type.String() });

/** The body of `POST …/invitations`: the e-mail address the link is mailed to. */
export const CreateBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: MAX_EMAIL + 100, description: 'the address the link is mailed to' }),
});
/** An invitation's creation body. */
export type CreateBody = Static<typeof CreateBody>;

/** The body of `POST {base}/user/invitations/accept`: the token of the mailed link. */
export const AcceptBody = Type.Object({
  token: Type.String({
    minLength: 1,
    maxLength: 256,
    description: 'the `token` of the link’s fragment (`/invitations/accept#token=…`)',
  }),
});
/** An acceptance body. */
export type AcceptBody = Static<typeof AcceptBody>;

/** The answer of an acceptance: the organisation joined and the consent record's ID. */
export const Accepted = Type.Object({
  Org: Type.Object({ OrgID: Type.String(), Name: Type.String() }),
  ConsentID: Type.String(),
});
/** An acceptance answer. */
export type Accepted = Static<typeof Accepted>;
