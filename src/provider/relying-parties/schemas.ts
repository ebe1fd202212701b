/** TypeBox schemas of the relying-party (OpenID Connect client) registration routes (docs/decisions/0016-oidc-relying-parties.md). */
import { type Static, Type } from 'typebox';
import { MAX_CLIENT_NAME, MAX_CLIENT_URIS } from './rules.js';

/** The path of `…/oidc/clients/{clientID}`: the organisation and the relying party. */
export const ClientParams = Type.Object({ organizationID: Type.String(), clientID: Type.String() });

const Uris = (description: string) =>
  Type.Array(Type.String({ maxLength: 2000 }), { maxItems: MAX_CLIENT_URIS, description });
const RedirectUris = Uris(
  '1 to 50 exact redirect URIs: https, http at loopback, or (public only) a private-use scheme',
);
const PostLogoutUris = Uris('0 to 50 exact post-logout redirect URIs, under the same rule');
const Name = Type.String({ maxLength: MAX_CLIENT_NAME, description: 'shown on the sign-in page; 1 to 200 characters' });
const PUBLIC = 'true: no secret, PKCE S256 required; false: a generated secret';

/** The body of a relying party's registration (the console's form reuses its limits). */
export const CreateBody = Type.Object({
  clientId: Type.Optional(
    Type.String({ maxLength: 200, description: '1 to 100 of A-Z a-z 0-9 . _ ~ -; generated when absent' }),
  ),
  name: Name,
  redirectUris: RedirectUris,
  postLogoutRedirectUris: Type.Optional(PostLogoutUris),
  public: Type.Optional(Type.Boolean({ description: `${PUBLIC}; default false` })),
});
/** A registration body. */
export type CreateBody = Static<typeof CreateBody>;

/** The body of a relying party's update: the fields to change; `public` cannot change. */
export const UpdateBody = Type.Object({
  name: Type.Optional(Name),
  redirectUris: Type.Optional(RedirectUris),
  postLogoutRedirectUris: Type.Optional(PostLogoutUris),
  public: Type.Optional(Type.Boolean({ description: 'cannot change: a value other than the stored one is a 400' })),
});
/** An update body. */
export type UpdateBody = Static<typeof UpdateBody>;

const client = {
  clientId: Type.String(),
  name: Type.String(),
  redirectUris: Type.Array(Type.String()),
  postLogoutRedirectUris: Type.Array(Type.String()),
  public: Type.Boolean(),
  createdAt: Type.String({ description: 'RFC 3339' }),
  updatedAt: Type.String({ description: 'RFC 3339' }),
};

/** A registered relying party as the API answers it (never its secret). */
export const ClientBody = Type.Object(client);
/** A relying-party body. */
export type ClientBody = Static<typeof ClientBody>;

const secretField = { description: 'answered only here, once; Assent keeps only its SHA-256' };

/** The answer of a registration: the relying party and, when confidential, its secret (shown once). */
export const CreatedBody = Type.Object({ ...client, clientSecret: Type.Optional(Type.String(secretField)) });

/** The answer of a secret rotation: the relying party and its new secret (shown once). */
export const RotatedBody = Type.Object({ ...client, clientSecret: Type.String(secretField) });
