/** TypeBox schemas of the anonymous-user routes (docs/api.md "User management"). */
import { type Static, Type } from 'typebox';
import { MAX_PASSWORD_INPUT } from '../../identity/index.js';

/** The path of `…/users/{userID}/upgrade`: the organisation and the anonymous user. */
export const UserParams = Type.Object({ organizationID: Type.String(), userID: Type.String() });

/**
 * The body of the upgrade of an anonymous user to a full account: a `username` (1 to 254 characters) and
 * optionally a name, e-mail, phone and password (checked by the password policy, README "Passwords").
 */
export const UpgradeBody = Type.Object({
  username: Type.String({ minLength: 1, maxLength: 254 }),
  name: Type.Optional(Type.String({ maxLength: 200 })),
  email: Type.Optional(Type.String({ maxLength: 254 })),
  phone: Type.Optional(Type.String({ maxLength: 40 })),
  password: Type.Optional(
    Type.String({
      maxLength: MAX_PASSWORD_INPUT,
      format: 'password',
      description: 'checked by the password policy (README "Passwords"); a refusal is a 400 naming the rule',
    }),
  ),
});
/** An upgrade body. */
export type UpgradeBody = Static<typeof UpgradeBody>;
