/** TypeBox schemas of the routes of an organisation's individuals (docs/consents.md "Adding individuals"). */
import { type Static, Type } from 'typebox';
import { MAX_PASSWORD_INPUT } from '../../identity/index.js';
import { PageQuery } from '../../platform/http/pagination.js';

/** A subscribed individual as the API answers it. */
export const Individual = Type.Object({
  ID: Type.String(),
  Name: Type.String(),
  Phone: Type.String(),
  Email: Type.String(),
});
/** An individual body. */
export type Individual = Static<typeof Individual>;

/** The path of `DELETE …/users/{userID}`: the organisation and the user. */
export const UserParams = Type.Object({ organizationID: Type.String(), userID: Type.String() });

/** The list's query: a keyset page, optionally only users whose name or e-mail contains `search`. */
export const ListQuery = Type.Object({
  ...PageQuery,
  search: Type.Optional(
    Type.String({
      maxLength: 200,
      description:
        'only users whose name or e-mail contains this text, ignoring case (surrounding spaces ignored; ' +
        '`%` and `_` are plain characters); the pages keep their user-ID order and `Links.Next` keeps the search',
    }),
  ),
});
/** A list query. */
export type ListQuery = Static<typeof ListQuery>;

/** The body of `individuals.add`: an existing user's ID, or a new user (docs/consents.md "Adding individuals"). */
export const AddBody = Type.Object({
  userid: Type.Optional(
    Type.String({
      maxLength: 100,
      description: 'your own ID, to subscribe yourself; staff: a user already subscribed (instead of username)',
    }),
  ),
  username: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 254,
      description: 'an individual to add (instead of userid): created when new, else invited',
    }),
  ),
  name: Type.Optional(Type.String({ maxLength: 200 })),
  email: Type.Optional(Type.String({ maxLength: 254 })),
  phone: Type.Optional(Type.String({ maxLength: 40 })),
  password: Type.Optional(
    Type.String({
      maxLength: MAX_PASSWORD_INPUT,
      format: 'password',
      description:
        'absent: the new user cannot sign in with a password. 8 to 128 characters after NFKC, ' +
        'not a common password, not the username (README "Passwords"); a refusal is a 400 naming the rule',
    }),
  ),
});
/** An `individuals.add` body. */
export type AddBody = Static<typeof AddBody>;

/** The answer of `individuals.add` (200 or 201): the individual and their consent record's ID. */
export const Added = Type.Object({ User: Individual, ConsentID: Type.String() });
/** An `individuals.add` answer. */
export type Added = Static<typeof Added>;
