/**
 * The import file format (docs/decisions/0004-organisations-as-code.md, "Import: organisations as code"). This format
 * is a contract: unknown fields are errors, and other tools depend on the exact shape.
 */
import { type Static, Type } from 'typebox';
import { MAX_PASSWORD_INPUT } from '../../identity/index.js';

const Key = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' });
const Url = Type.String({ maxLength: 2000, pattern: '^https?://[^\\s]+$' });
const closed = { additionalProperties: false } as const;

const Attribute = Type.Object({ key: Key, name: Type.String({ minLength: 1, maxLength: 200 }) }, closed);

const Purpose = Type.Object(
  {
    key: Key,
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    lawfulUsage: Type.Optional(Type.Boolean()),
    policyUrl: Type.Optional(Url),
    attributes: Type.Optional(Type.Array(Attribute)),
  },
  closed,
);

/** The fields every user entry has, admin or individual. */
const person = {
  username: Type.String({ minLength: 1, maxLength: 320 }),
  // Length and the rest of the password policy are checked after the schema (`identity/passwords/policy.ts`).
  password: Type.String({ maxLength: MAX_PASSWORD_INPUT }),
  name: Type.Optional(Type.String({ maxLength: 200 })),
  email: Type.Optional(Type.String({ maxLength: 320 })),
  phone: Type.Optional(Type.String({ maxLength: 40 })),
};

const Admin = Type.Object(
  { ...person, roles: Type.Array(Type.Enum(['owner', 'admin', 'dpo', 'developer']), { minItems: 1 }) },
  closed,
);

/**
 * One past change of an attribute consent, from the platform Assent replaces (docs/operations.md
 * "Consent history"); the time rules are the consent domain's (`consent/transfer/import.ts`).
 */
const ConsentEvent = Type.Object(
  {
    purpose: Key,
    attribute: Key,
    value: Type.Enum(['Allow', 'Disallow', 'AskMe']),
    /** days (0 = no time limit), as the consents API takes them */
    days: Type.Optional(Type.Integer({ minimum: 0, maximum: 36_500 })),
    /** RFC 3339 with a time zone */
    at: Type.String({ maxLength: 40 }),
    by: Type.Optional(Type.Enum(['individual', 'system'])),
    channel: Type.Optional(Type.String({ maxLength: 200 })),
  },
  closed,
);

const Individual = Type.Object(
  { ...person, consentHistory: Type.Optional(Type.Array(ConsentEvent, { maxItems: 10_000 })) },
  closed,
);

/**
 * A relying party of the organisation's OpenID provider (docs/wallet.md "Relying parties"); the rules
 * beyond the schema are the admin API's, checked by the caller's `OidcClientImport`.
 */
const OidcClient = Type.Object(
  {
    clientId: Type.String({ minLength: 1, maxLength: 100 }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    redirectUris: Type.Array(Type.String({ minLength: 1, maxLength: 2000 }), { minItems: 1, maxItems: 50 }),
    postLogoutRedirectUris: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 2000 }), { maxItems: 50 })),
    public: Type.Boolean(),
  },
  closed,
);

/**
 * The organisation's wallet sign-in settings (docs/wallet.md "Wallet settings"); the rules beyond
 * the schema are the admin API's, checked by the caller's `WalletSettingsImport`.
 */
const WalletSettings = Type.Object(
  {
    profile: Type.Optional(Type.String({ maxLength: 20 })),
    verifierCertificateChain: Type.Optional(Type.String({ maxLength: 20_000 })),
    verifierPrivateKey: Type.Optional(Type.String({ maxLength: 20_000 })),
    generateVerifierKey: Type.Optional(Type.Boolean()),
    trustedIssuerCertificates: Type.Optional(Type.Array(Type.String({ maxLength: 20_000 }), { maxItems: 20 })),
    dcqlQuery: Type.Optional(Type.Unknown()),
    claimMapping: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String()))),
    stableClaim: Type.Optional(Type.String({ maxLength: 64 })),
    sameDeviceOnly: Type.Optional(Type.Boolean()),
    deepLinkScheme: Type.Optional(Type.String({ maxLength: 40 })),
    responseEncryption: Type.Optional(Type.Array(Type.String(), { maxItems: 2 })),
  },
  closed,
);

const Organisation = Type.Object(
  {
    key: Key,
    name: Type.String({ minLength: 1, maxLength: 200 }),
    location: Type.Optional(Type.String({ maxLength: 200 })),
    type: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    policyUrl: Type.Optional(Url),
    dataRetention: Type.Optional(
      Type.Object({ enabled: Type.Boolean(), periodDays: Type.Integer({ minimum: 0, maximum: 36500 }) }, closed),
    ),
    /** Whether the staff must use a second factor to reach the console (docs/security.md "Staff policy"). */
    staffMfaRequired: Type.Optional(Type.Boolean()),
    purposes: Type.Optional(Type.Array(Purpose)),
    admins: Type.Optional(Type.Array(Admin)),
    individuals: Type.Optional(Type.Array(Individual)),
    /** App URIs a federated sign-in may return to (docs/decisions/0013-federation-broker.md); replaces the registered list when present. */
    redirectUris: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 2000 }), { maxItems: 50 })),
    /**
     * Relying parties, upserted by `clientId` (docs/decisions/0016-oidc-relying-parties.md); clients not listed are
     * kept. A new confidential client's generated secret is printed once, in the result.
     */
    oidcClients: Type.Optional(Type.Array(OidcClient, { maxItems: 200 })),
    /** Wallet sign-in settings; replace the stored ones when present (a generated key is kept). */
    wallet: Type.Optional(WalletSettings),
  },
  closed,
);

/** The whole import file. */
export const ImportFile = Type.Object(
  {
    clients: Type.Optional(
      Type.Array(Type.Object({ clientId: Type.String({ minLength: 1, maxLength: 200 }) }, closed)),
    ),
    organisations: Type.Optional(Type.Array(Organisation)),
  },
  closed,
);
/** A parsed, valid import file. */
export type ImportFile = Static<typeof ImportFile>;
/** One `oidcClients` entry of an import file. */
export type ImportOidcClient = Static<typeof OidcClient>;
/** One `consentHistory` event of an import file. */
export type ImportConsentEvent = Static<typeof ConsentEvent>;
/** One organisation of an import file. */
export type ImportOrganisation = Static<typeof Organisation>;

/** The printed result: each key mapped to the ID assigned. */
export interface ImportResult {
  clients: Record<string, string>;
  organisations: Record<
    string,
    {
      id: string;
      purposes: Record<string, { id: string; attributes: Record<string, string> }>;
      users: Record<string, string>;
      /**
       * Present when the organisation lists `oidcClients`: each `clientId` mapped to `{}`, or to
       * `{clientSecret}` for a confidential client this run created (the secret's only appearance).
       */
      oidcClients?: Record<string, { clientSecret?: string }>;
      /** Present when an individual lists `consentHistory`: events recorded now, and those recorded before (count). */
      consentHistory?: { recorded: number; skipped: number };
      /** Present when the organisation lists `wallet`: the verifier's `x509_hash:…` client identifier. */
      wallet?: { verifierClientId: string };
    }
  >;
}
