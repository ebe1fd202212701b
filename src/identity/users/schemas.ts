/**
 * TypeBox schemas of the user routes (`GET|PATCH {base}/user`, docs/api.md "User management") and the User
 * resource of docs/api.md "Resources". Responses are serialised through them, so a field not declared here
 * never leaves the server.
 */
import { type Static, Type } from 'typebox';

/**
 * The User of docs/api.md "Resources"; every field optional in responses. Registered with `app.addSchema`
 * as `User` (src/app/server.ts), so routes refer to it with `Type.Ref('User')`.
 */
export const UserBody = Type.Object(
  {
    ID: Type.Optional(Type.String()),
    Name: Type.Optional(Type.String()),
    IamID: Type.Optional(Type.String()),
    Email: Type.Optional(Type.String()),
    Phone: Type.Optional(Type.String()),
    ImageID: Type.Optional(Type.String()),
    ImageURL: Type.Optional(Type.String()),
    LastVisit: Type.Optional(Type.String({ description: 'RFC 3339' })),
    Client: Type.Optional(Type.Object({ Token: Type.String(), Type: Type.Integer() })),
    Orgs: Type.Optional(
      Type.Array(
        Type.Object({
          OrgID: Type.String(),
          Name: Type.String(),
          Location: Type.String(),
          Type: Type.String(),
          TypeID: Type.String(),
          EulaAccepted: Type.Boolean(),
        }),
      ),
    ),
    APIKey: Type.Optional(Type.String({ description: 'long-lived JWT' })),
    Roles: Type.Optional(Type.Array(Type.Object({ RoleID: Type.Integer(), OrgID: Type.String() }))),
  },
  { $id: 'User' },
);
/** A User body. */
export type UserBody = Static<typeof UserBody>;

/** The answer `{"User": {...}}` of the user and profile-image routes (docs/api.md "User management"). */
export const UserResponse = Type.Object({ User: Type.Ref('User') });

/**
 * The body of `PATCH {base}/user`: the signed-in user's Name (≤ 200 characters), Phone (≤ 40) and
 * device-notification Client (docs/notifications.md "Mobile push").
 */
export const ProfilePatch = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 200 })),
  phone: Type.Optional(Type.String({ maxLength: 40 })),
  client: Type.Optional(
    Type.Object({
      token: Type.String({ maxLength: 4096, description: 'device notification token' }),
      type: Type.Union([Type.Integer({ minimum: 0, maximum: 100 }), Type.String({ maxLength: 20 })], {
        description:
          'device type: 1 iOS (APNs), 2 Android (FCM), 0 none; also `ios`, `android`, `apns`, `fcm` … in any case ' +
          '(docs/notifications.md "Mobile push")',
      }),
    }),
  ),
});
/** A `PATCH {base}/user` body. */
export type ProfilePatch = Static<typeof ProfilePatch>;
