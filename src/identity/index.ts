/**
 * The public entry of the identity context: what the other contexts may use of it (docs/development.md "Bounded
 * contexts"). Each name is documented where it is defined.
 */
export { MfaLogin } from './factors/completion.js';
export { eraseFactors } from './factors/erasure.js';
export { MailedFactorEvents } from './factors/events.js';
export { SecondFactorRequired, SecondStep, SecondStepExpired } from './factors/login.js';
export { Reauthentication } from './factors/reauth.js';
export { factorRoutes } from './factors/routes.js';
export { type FactorAction, SecondFactors } from './factors/service.js';
export { eraseImages } from './images/erasure.js';
export { readImageField, UPLOAD_LIMITS } from './images/form.js';
export { imageRoutes, sendImage } from './images/routes.js';
export { ImageService } from './images/service.js';
export { purgeEndedCeremonies } from './passkeys/lapsed.js';
export { passkeyRoutes } from './passkeys/routes.js';
export { type PasskeyBody, Passkeys } from './passkeys/service.js';
export { BackgroundTasks } from './passwords/background.js';
export { eraseResetToken } from './passwords/erasure.js';
export {
  fragmentTokenPrologue,
  linkPageHtml,
  PAGE_STYLE,
  RESET_PAGE_HEADERS,
  selfContainedPageCsp,
} from './passwords/page.js';
export {
  assertPasswordPolicy,
  MAX_PASSWORD_INPUT,
  normalisePassword,
  PasswordPolicyError,
  passwordProblem,
} from './passwords/policy.js';
export { passwordRoutes } from './passwords/routes.js';
export { FORGOT_ANSWER, PasswordService } from './passwords/service.js';
export { authenticate } from './sessions/credentials.js';
export { type Device, deviceOf } from './sessions/device.js';
export { eraseCredentials } from './sessions/erasure.js';
export { ExportedApiKey, ExportedSession, exportCredentials } from './sessions/export.js';
export { purgeLapsed } from './sessions/lapsed.js';
export { LivenessCache } from './sessions/liveness.js';
export { type OwnSessionBody, OwnSessions } from './sessions/own.js';
export { ownSessionRoutes } from './sessions/own-routes.js';
export { identityRoutes, loginV11Routes } from './sessions/routes.js';
export { LoginResponse, TokenBody } from './sessions/schemas.js';
export { IdentityService, type LoginResult, normaliseUsername } from './sessions/service.js';
export { assertKeyNotBlocked, recordKeyFailure } from './sessions/throttle.js';
export { csrfMatches, WEB_SESSION_SECONDS, type WebSession, WebSessions } from './sessions/web-sessions.js';
export { KeyRing, maxTokenTtl, ROTATION_CHANNEL, rotateSigningKey } from './tokens/keys.js';
export { DocumentSigner, DocumentType } from './tokens/signer.js';
export { REFRESH_MAC_PURPOSE, Tokens, TokenType } from './tokens/tokens.js';
export { CLIENT_TYPE_ANDROID, CLIENT_TYPE_IOS } from './users/client-type.js';
export { scrubAccount } from './users/erasure.js';
export { ExportedProfile, exportProfile } from './users/export.js';
export { hashPassword, needsRehash, verifyPassword } from './users/password-hashing.js';
export { presentUser } from './users/present.js';
export { userProfile } from './users/profile.js';
export { ROLE_BY_NAME, ROLES, Role } from './users/roles.js';
export { userRoutes } from './users/routes.js';
export { UserBody } from './users/schemas.js';
export { UserService } from './users/service.js';
