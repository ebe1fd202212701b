/**
 * The composition root (docs/development.md, code layout): wires the services of one Assent
 * process together: the store, the master key, the key ring, the token minting and every domain
 * service (the notification parts through `createNotifications`). No other module builds a
 * service; the HTTP app (`server.ts`), the admin socket and the CLI (`cli/`) share this one.
 */

import type { FastifyBaseLogger } from 'fastify';
import { AccountService } from '../accounts/index.js';
import {
  CatalogueCache,
  ChainSealer,
  ConsentCheckService,
  ConsentExport,
  ConsentRequestService,
  ConsentService,
  DataAttributeService,
  GroupCommit,
  HistoryService,
  ListingService,
  OwnRecords,
  PurposeService,
  ReceiptService,
  RecordViews,
  RetentionService,
} from '../consent/index.js';
import { FederatedWebSignIn, type FederationServices, type SamlServices, WebOrigins } from '../federation/index.js';
import {
  authenticate,
  BackgroundTasks,
  DocumentSigner,
  IdentityService,
  ImageService,
  KeyRing,
  LivenessCache,
  maxTokenTtl,
  PasswordService,
  REFRESH_MAC_PURPOSE,
  Tokens,
  UserService,
  WebSessions,
} from '../identity/index.js';
import {
  createEventWebhooks,
  createNotifications,
  type EventFeed,
  type EventWebhooks,
  type NotificationService,
} from '../notifications/index.js';
import {
  AnonymousService,
  AuditLogService,
  AuditSealer,
  IndividualService,
  InvitationService,
  RolesCache,
} from '../organisations/index.js';
import type { Config } from '../platform/config/load.js';
import { loadMasterKey, type MasterKey } from '../platform/crypto/master-key.js';
import type { Store } from '../platform/db/open.js';
import { EventSequencer } from '../platform/events/sequencer.js';
import type { GuardServices } from '../platform/http/auth.js';
import { createMailer, type Mailer } from '../platform/mail/mailer.js';
import {
  DashboardWalletSignIn,
  OidcClientService,
  type OrgProviders,
  type RelyingPartyRegistry,
  type WalletFlow,
  WalletInteractions,
  type WalletSettingsService,
  type WalletSignIn,
} from '../provider/index.js';
import { createFederation, createProvider } from './context-protocols.js';
import { startWorkers } from './workers.js';

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

/**
 * Builds the context over an open, migrated store; creates the first signing key if none exists.
 * @throws {SealError} when the master key cannot open the stored signing keys (wrong ASSENT_SECRET).
 */
export async function createContext(config: Config, store: Store): Promise<Context> {
  const master = loadMasterKey(config.secret, config.dataDir);
  const keys = new KeyRing(store.db, master, maxTokenTtl(config));
  await keys.init();
  const tokens = new Tokens(keys, config.publicUrl, master.derivedKey(REFRESH_MAC_PURPOSE));
  const liveness = new LivenessCache(store.db);
  const roles = new RolesCache(store.db);
  // PGlite has one connection: a second statement in flight would only queue there, so one slot.
  const slots = (n: number) => (store.kind === 'pglite' ? 1 : n);
  const identity = new IdentityService(store.db, config, tokens, master, liveness, slots(config.dbWriteSlots));
  const users = new UserService(store.db, identity);
  // Numbers the outbox's events after their commit (docs/events.md); woken by every writer that has it, and with the sealer.
  const events = new EventSequencer(store.db);
  const purposes = new PurposeService(store.db, events);
  const retention = new RetentionService(store.db);
  const dataAttributes = new DataAttributeService(store.db, events);
  const sealer = new ChainSealer(store.db, events);
  const catalogues = new CatalogueCache(store.db);
  const writes = new GroupCommit(store.db, slots(config.dbWriteSlots));
  const views = new RecordViews(store.db, catalogues, slots(config.dbReadSlots));
  const consents = new ConsentService(store.db, sealer, views, roles, writes);
  const history = new HistoryService(store.db, sealer);
  const receipts = new ReceiptService(
    store.db,
    sealer,
    consents,
    purposes,
    dataAttributes,
    retention,
    new DocumentSigner(keys),
    config.publicUrl,
  );
  const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, dataDir: config.dataDir });
  // Work done after the answer (mails whose timing must not tell an outcome); the password routes drain it on close.
  const background = new BackgroundTasks();
  const invitations = new InvitationService(store.db, config, mailer);
  const individuals = new IndividualService(store.db, config, roles, invitations, background, events);
  const listings = new ListingService(store.db, catalogues, roles);
  const anonymous = new AnonymousService(store.db, config);
  const accounts = new AccountService(
    store.db,
    liveness,
    {
      publicUrl: config.publicUrl,
      consents: new ConsentExport(store.db, views, sealer, consents),
    },
    events,
  );
  const auditSealer = new AuditSealer(store.db);
  const auditLog = new AuditLogService(store.db, auditSealer);
  const passwords = new PasswordService(store.db, config, mailer, background, liveness);
  const images = new ImageService(store.db, identity);
  const { configs, broker, federation, saml } = createFederation(store.db, config, master, identity, tokens);
  const webOrigins = new WebOrigins(store.db);
  const guard: GuardServices = {
    authenticate: (authorization) => authenticate(authorization, liveness, tokens),
    rolesIn: (orgId, userId) => roles.rolesIn(orgId, userId),
  };
  const notifications = createNotifications({ store, master, mailer, config });
  const { walletSettings, wallet, relyingParties, providers } = createProvider(store.db, config, master, keys);
  const sealFirst = (orgId: string) => sealer.flush(orgId);
  const webhooks = createEventWebhooks({ store, master, mailer, config, sequencer: events, sealFirst });
  let stop: (() => Promise<void>) | undefined;
  const ctx: Context = {
    config,
    store,
    master,
    mailer,
    keys,
    tokens,
    liveness,
    roles,
    sealer,
    auditSealer,
    events,
    webhooks,
    eventFeed: webhooks.feed,
    guard,
    identity,
    users,
    purposes,
    retention,
    dataAttributes,
    consents,
    ownRecords: new OwnRecords(views),
    pending: {
      consentReads: () => views.pending,
      consentWrites: () => writes.pending,
      refreshRotations: () => identity.pendingRotations,
    },
    history,
    receipts,
    individuals,
    listings,
    checks: new ConsentCheckService(store.db, catalogues, roles, sealer),
    anonymous,
    accounts,
    auditLog,
    passwords,
    invitations,
    images,
    federation,
    saml,
    oidc: {
      clients: new OidcClientService(store.db),
      relyingParties,
      providers,
      interactions: new WalletInteractions(providers, relyingParties, wallet),
    },
    webOrigins,
    webSessions: new WebSessions(store.db, identity, liveness, config.refreshTokenTtl),
    webSignIn: {
      federated: new FederatedWebSignIn(configs, broker, federation.exchange, config.publicUrl),
      wallet: new DashboardWalletSignIn(store.db, wallet, walletSettings, {
        publicUrl: config.publicUrl,
        perIp: config.walletPerIp,
      }),
    },
    wallet,
    walletSettings,
    notifications: notifications.service,
    consentRequests: new ConsentRequestService(store.db, notifications.service),
    async startWorkers(log) {
      stop = await startWorkers(ctx, notifications, log);
    },
    async stopWorkers() {
      await stop?.();
      stop = undefined;
    },
  };
  return ctx;
}
