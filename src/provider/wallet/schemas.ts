/**
 * TypeBox schemas of the wallet's routes: the verifier's endpoints (docs/wallet.md "The verifier"; OpenID4VP 1.0
 * §5.10, §8.2) and an organisation's wallet settings (docs/wallet.md "Wallet settings").
 */
import { type Static, Type } from 'typebox';

/**
 * An OAuth error answer of the verifier's endpoints (RFC 6749 §5.2): `error`, optionally `error_description`; other
 * members are allowed.
 */
export const OAuthError = Type.Object(
  { error: Type.String(), error_description: Type.Optional(Type.String()) },
  {
    additionalProperties: true,
  },
);
/** An OAuth error answer. */
export type OAuthError = Static<typeof OAuthError>;

/** The path of the verifier's endpoints: the organisation of its OpenID provider (`{organisationId}`). */
export const VerifierParams = Type.Object({ organisationId: Type.String() });

/** The path of `GET …/oid4vp/request/{requestId}`: the organisation and the transaction's request ID (≤ 100 characters). */
export const RequestObjectParams = Type.Object({
  organisationId: Type.String(),
  requestId: Type.String({ maxLength: 100 }),
});

/**
 * The form of `POST …/oid4vp/response` (OpenID4VP 1.0 §8.2, §8.3): `response` (a JWE, `direct_post.jwt`) or
 * `vp_token` (`direct_post`) of ≤ 200,000 characters, `state`, or an `error`; other members are allowed.
 */
export const WalletResponseBody = Type.Object(
  {
    response: Type.Optional(Type.String({ maxLength: 200_000 })),
    vp_token: Type.Optional(Type.String({ maxLength: 200_000 })),
    state: Type.Optional(Type.String({ maxLength: 200 })),
    error: Type.Optional(Type.String({ maxLength: 200 })),
    error_description: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: true },
);
/** A wallet response form. */
export type WalletResponseBody = Static<typeof WalletResponseBody>;

/** The answer to a wallet's response: the `redirect_uri` of a same-device flow (OpenID4VP 1.0 §8.2), else nothing. */
export const WalletResponseAnswer = Type.Object({ redirect_uri: Type.Optional(Type.String()) });
/** A wallet response answer. */
export type WalletResponseAnswer = Static<typeof WalletResponseAnswer>;

/** A PEM text of ≤ 20,000 characters. */
const Pem = (description: string) => Type.String({ maxLength: 20_000, description });

/** The mapping of ID-token claims to paths of credential claims (docs/wallet.md "Wallet settings"). */
export const ClaimMapping = Type.Record(Type.String(), Type.Array(Type.String()), {
  description: 'ID-token claim → credential claims path; default {"email": ["email_address"]} (+ email_verified)',
});
/** A claim mapping. */
export type ClaimMapping = Static<typeof ClaimMapping>;

/**
 * The body of `PUT …/organizations/{organizationID}/wallet`: every field optional (an absent one takes its default;
 * the stored key is kept); `settings-rules.ts` checks what the schema cannot.
 */
export const PutBody = Type.Object({
  profile: Type.Optional(Type.String({ description: 'haip (default) or compat' })),
  verifierCertificateChain: Type.Optional(Pem('PEM certificates, leaf first (P-256)')),
  verifierPrivateKey: Type.Optional(Pem('PEM private key of the leaf; write-only, sealed, never answered')),
  generateVerifierKey: Type.Optional(
    Type.Boolean({ description: 'true: Assent makes a P-256 key and a self-signed certificate' }),
  ),
  trustedIssuerCertificates: Type.Optional(Type.Array(Pem('one PEM CA certificate'), { maxItems: 20 })),
  dcqlQuery: Type.Optional(
    Type.Unknown({ description: 'DCQL query (OpenID4VP 1.0 §6); dc+sd-jwt with meta.vct_values' }),
  ),
  claimMapping: Type.Optional(ClaimMapping),
  stableClaim: Type.Optional(Type.String({ maxLength: 64, description: 'default email_address' })),
  sameDeviceOnly: Type.Optional(Type.Boolean({ description: 'default false' })),
  deepLinkScheme: Type.Optional(Type.String({ maxLength: 40, description: 'default openid4vp://' })),
  responseEncryption: Type.Optional(
    Type.Array(Type.String(), { maxItems: 2, description: 'enc values of direct_post.jwt; [] for plain direct_post' }),
  ),
});
/** A wallet settings body. */
export type PutBody = Static<typeof PutBody>;

/** The wallet settings as answered: never the private key; times are RFC 3339. */
export const SettingsBody = Type.Object({
  profile: Type.String(),
  verifierCertificateChain: Type.String(),
  verifierClientId: Type.String({ description: 'x509_hash:… of the leaf' }),
  trustedIssuerCertificates: Type.Array(Type.String()),
  dcqlQuery: Type.Unknown(),
  claimMapping: ClaimMapping,
  stableClaim: Type.String(),
  sameDeviceOnly: Type.Boolean(),
  deepLinkScheme: Type.String(),
  responseEncryption: Type.Array(Type.String()),
  createdAt: Type.String({ description: 'RFC 3339' }),
  updatedAt: Type.String({ description: 'RFC 3339' }),
});
/** A wallet settings answer. */
export type SettingsBody = Static<typeof SettingsBody>;
