/**
 * The shape of the composition root (docs/development.md, code layout): every service of one Assent process, as
 * `createContext` (src/app/context.ts) builds them and the HTTP app, the admin socket and the CLI use them.
 */

import type { FastifyBaseLogger } from 'fastify';
import type { AccountService } from '../accounts/index.js';
import type {
  ChainSealer,
  ConsentCheckService,
  ConsentRequestService,
  ConsentService,
  DataAttributeService,
  HistoryService,
  ListingService,
  OwnRecords,
  PurposeService,
  ReceiptService,
  RetentionService,
} from '../consent/index.js';
import type { FederatedWebSignIn, FederationServices, SamlServices, WebOrigins } from '../federation/index.js';
import type {
  IdentityService,
  ImageService,
  KeyRing,
  LivenessCache,
  MfaLogin,
  OwnSessions,
  Passkeys,
  PasswordService,
  Reauthentication,
  SecondFactors,
  SecondStep,
  Tokens,
  UserService,
  WebSessions,
} from '../identity/index.js';
import type { EventFeed, EventWebhooks, NotificationService } from '../notifications/index.js';
import type {
  AnonymousService,
  AuditLogService,
  AuditSealer,
  IndividualService,
  InvitationService,
  RolesCache,
  StaffInvitations,
  StaffPolicies,
  StaffService,
} from '../organisations/index.js';
import type { Config } from '../platform/config/load.js';
import type { MasterKey } from '../platform/crypto/master-key.js';
import type { Store } from '../platform/db/open.js';
import type { EventSequencer } from '../platform/events/sequencer.js';
import type { GuardServices } from '../platform/http/auth.js';
import type { Mailer } from '../platform/mail/mailer.js';
import type {
  DashboardWalletSignIn,
  OidcClientService,
  OrgProviders,
  RelyingPartyRegistry,
  WalletFlow,
  WalletInteractions,
  WalletSettingsService,
  WalletSignIn,
} from '../provider/index.js';

/** Everything a request handler may need. */
export interface Context {
  config: Config;
  store: Store;
  master: MasterKey;
  /** Outgoing mail (SMTP_URL, or the outbox); `stopWorkers` closes it. */
  mailer: Mailer;
  keys: KeyRing;
  tokens: Tokens;
  /** The delivery of special consent requests (docs/api.md "Permissions and consents"); its queue runs once `startWorkers` has run. */
  notifications: NotificationService;
  /** Starts special consent requests (docs/api.md "Permissions and consents") and answers their jobs; `notifications` delivers them. */
  consentRequests: ConsentRequestService;
  /**
   * Starts the background workers (sweeps, purge, sealer, job queue and its workers): `assent
   * serve` and the test server call it before serving.
   * @param log - where background failures are reported.
   * @throws the database's error when pg-boss cannot create its schema.
   */
  startWorkers(log: FastifyBaseLogger): Promise<void>;
  /** Stops what `startWorkers` started, waiting for the rounds under way; closes the mailer. A no-op when not started. */
  stopWorkers(): Promise<void>;
  /** The auth guard's cached liveness check of sessions and API keys; `buildApp` attaches it. */
  liveness: LivenessCache;
  /** The access checks' cached roles of users in organisations; `buildApp` attaches it. */
  roles: RolesCache;
  /** Seals consent events into their chain after the commit; `startWorkers` starts its sweep. */
  sealer: ChainSealer;
  /** Numbers the outbox's events per organisation after the commit (docs/events.md); `startWorkers` starts its sweep. */
  events: EventSequencer;
  /** Reads each organisation's change feed (`GET {base}/organizations/{organizationID}/events`; docs/events.md). */
  eventFeed: EventFeed;
  /** Organisations' event webhooks: the service the routes use, and what `startWorkers` starts (docs/events.md). */
  webhooks: EventWebhooks;
  /** What the auth guard asks of the identity and orgs domains. */
  guard: GuardServices;
  identity: IdentityService;
  users: UserService;
  purposes: PurposeService;
  retention: RetentionService;
  dataAttributes: DataAttributeService;
  consents: ConsentService;
  /**
   * Work taken by the batched statements and not yet answered (count each; `Batcher.pending`,
   * src/platform/db/batcher.ts): consent record reads, consent changes and refresh-token rotations. Read by the
   * batching tests, which hold the first statement until every request is queued (docs/development.md).
   */
  pending: { consentReads(): number; consentWrites(): number; refreshRotations(): number };
  /** An individual's own consent records at once (the dashboard's "My consents"). */
  ownRecords: OwnRecords;
  history: HistoryService;
  /** Signed ISO/IEC TS 27560 receipts of history events (docs/consents.md "Consent receipts"). */
  receipts: ReceiptService;
  individuals: IndividualService;
  /** Consented-user pages, and the consent overview and trend the console reads (`overview`, `trend`). */
  listings: ListingService;
  /** The bulk consent check (docs/api.md "Bulk consent check"). */
  checks: ConsentCheckService;
  anonymous: AnonymousService;
  /** The individual's data export (GDPR Art. 15 and 20) and account deletion (Art. 17). */
  accounts: AccountService;
  /** The organisation audit log's reader; other domains write entries with `recordAudit`. */
  auditLog: AuditLogService;
  /** Seals audit entries into their chain after the commit (docs/audit.md); `startWorkers` starts its sweep. */
  auditSealer: AuditSealer;
  /** The web front ends' browser sessions (docs/web.md "Sessions"). */
  webSessions: WebSessions;
  /** The privacy dashboard's sign-in through an organisation's external OpenID provider or a wallet (docs/web.md "Sign-in"). */
  webSignIn: { federated: FederatedWebSignIn; wallet: DashboardWalletSignIn };
  /** Password changes and resets; its mails go out after the answer, and the app drains them on close. */
  passwords: PasswordService;
  invitations: InvitationService;
  /**
   * A person's second factors, re-authentication, and the second step of password logins (docs/security.md
   * "Second factors"; docs/api.md "Second factor").
   */
  factors: {
    factors: SecondFactors;
    reauth: Reauthentication;
    mfaLogin: MfaLogin;
    secondStep: SecondStep;
    /** The person's own sessions (docs/security.md "Sessions"). */
    ownSessions: OwnSessions;
    /** Passkeys (docs/security.md "Passkeys"). */
    passkeys: Passkeys;
  };
  /** An organisation's staff and their roles, and staff invitations (docs/staff.md). */
  staff: { members: StaffService; invitations: StaffInvitations; policies: StaffPolicies };
  images: ImageService;
  /** Federation with organisations' identity providers (docs/decisions/0013-federation-broker.md). */
  federation: FederationServices;
  /** SAML 2.0 federation with organisations' IdPs (docs/decisions/0022-saml-federation.md). */
  saml: SamlServices;
  /**
   * The OpenID provider's relying parties (docs/api.md "Authorization endpoint"; docs/wallet.md): `clients` registers them (admin
   * API), `relyingParties` is what the provider reads.
   */
  oidc: {
    clients: OidcClientService;
    relyingParties: RelyingPartyRegistry;
    /** Each organisation's OpenID provider (docs/decisions/0017-wallet-sign-in-provider.md). */
    providers: OrgProviders;
    /** The wallet sign-in page's steps (docs/wallet.md "The sign-in page"). */
    interactions: WalletInteractions;
  };
  /**
   * The wallet verifier behind the provider's sign-in page (docs/api.md "Authorization endpoint"; docs/wallet.md): the provider
   * uses it as `WalletSignIn`; the wallet's endpoints call its `requestObject` and `receive`.
   */
  wallet: WalletSignIn & WalletFlow;
  /** Organisations' wallet settings (admin API `{base}/organizations/{organizationID}/wallet`). */
  walletSettings: WalletSettingsService;
  /** The origins of the registered app redirect URIs, which CORS allows (docs/api.md "CORS and security headers"). */
  webOrigins: WebOrigins;
}
