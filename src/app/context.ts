/**
 * The composition root (docs/development.md, code layout): wires the services of one Assent
 * process together: the store, the master key, the key ring, the token minting and every domain
 * service (the notification parts through `createNotifications`). No other module builds a
 * service; the HTTP app (`server.ts`), the admin socket and the CLI (`cli/`) share this one.
 */

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
import { FederatedWebSignIn, WebOrigins } from '../federation/index.js';
import {
  authenticate,
  BackgroundTasks,
  DocumentSigner,
  IdentityService,
  ImageService,
  KeyRing,
  LivenessCache,
  MailedFactorEvents,
  MfaLogin,
  maxTokenTtl,
  OwnSessions,
  Passkeys,
  PasswordService,
  REFRESH_MAC_PURPOSE,
  Reauthentication,
  SecondFactors,
  SecondStep,
  Tokens,
  UserService,
  WebSessions,
} from '../identity/index.js';
import { createEventWebhooks, createNotifications } from '../notifications/index.js';
import {
  AnonymousService,
  AuditLogService,
  AuditSealer,
  auditStaffSecurity,
  IndividualService,
  InvitationService,
  RolesCache,
  StaffInvitations,
  StaffPolicies,
  StaffService,
} from '../organisations/index.js';
import type { Config } from '../platform/config/load.js';
import { loadMasterKey } from '../platform/crypto/master-key.js';
import type { Store } from '../platform/db/open.js';
import { EventSequencer } from '../platform/events/sequencer.js';
import type { GuardServices } from '../platform/http/auth.js';
import { createMailer } from '../platform/mail/mailer.js';
import { DashboardWalletSignIn, OidcClientService, WalletInteractions } from '../provider/index.js';
import { createFederation, createProvider } from './context-protocols.js';
import type { Context } from './context-shape.js';
import { startWorkers } from './workers.js';

export type { Context } from './context-shape.js';

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
  const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, dataDir: config.dataDir });
  const factorEvents = new MailedFactorEvents(store.db, mailer, auditStaffSecurity);
  const host = new URL(config.publicUrl).hostname;
  const passkeys = new Passkeys(store.db, config.publicUrl, liveness, factorEvents, config.throttleIp);
  const factors = new SecondFactors(store.db, master, liveness, factorEvents, host, config.throttleAccount, passkeys);
  const secondStep = new SecondStep(store.db, factors);
  const identity = new IdentityService(
    store.db,
    config,
    tokens,
    master,
    liveness,
    slots(config.dbWriteSlots),
    secondStep,
  );
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
    factors: {
      factors,
      reauth: new Reauthentication(store.db, identity, factors),
      mfaLogin: new MfaLogin(identity, secondStep),
      secondStep,
      ownSessions: new OwnSessions(store.db, liveness, config.refreshTokenTtl),
      passkeys,
    },
    staff: {
      members: new StaffService(store.db, roles),
      invitations: new StaffInvitations(store.db, config, mailer, roles),
      policies: new StaffPolicies(store.db),
    },
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
